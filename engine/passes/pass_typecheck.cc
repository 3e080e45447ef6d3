// The after-pass typecheck switch and its per-pass counts (pass_typecheck.h).
#include "engine/passes/pass_typecheck.h"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>

#include "engine/core/error.h"
#include "engine/ir/typecheck.h"

namespace tandem {
namespace {
#ifdef NDEBUG
constexpr bool kDebugBuild = false;
#else
constexpr bool kDebugBuild = true;
#endif
// TANDEM_TYPECHECK_PASSES=1 turns the check on in a release build too (a CI run, a bisect).
bool env_asks() {
  const char* v = std::getenv("TANDEM_TYPECHECK_PASSES");
  return v && std::string(v) == "1";
}
std::atomic<bool> g_enabled{kDebugBuild || env_asks()};
std::mutex g_mu;
std::map<std::string, int64_t>& counts() {
  static std::map<std::string, int64_t> c;
  return c;
}
}  // namespace

bool pass_typecheck_enabled() { return g_enabled; }
void set_pass_typecheck(bool on) { g_enabled = on; }

int64_t pass_typecheck_count(const std::string& pass) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = counts().find(pass);
  return it == counts().end() ? 0 : it->second;
}

void typecheck_after_pass(const Program& result, const std::string& pass) {
  if (!g_enabled) return;
  try {
    typecheck(result);
  } catch (const Error& e) {
    throw Error(ErrorKind::invariant, cat("pass ", pass, " produced an ill-typed program: ", e.what()));
  }
  std::lock_guard<std::mutex> lock(g_mu);
  ++counts()[pass];
}

}  // namespace tandem
