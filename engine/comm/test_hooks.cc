// Test-only fault hooks (see test_hooks.h): the variable is parsed once; each point then
// costs one comparison when no hook is set.
#include "engine/comm/test_hooks.h"

#ifdef TANDEM_TEST_HOOKS
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "engine/core/error.h"
#include "engine/core/rank_env.h"
#endif

namespace tandem::comm {

#ifdef TANDEM_TEST_HOOKS
namespace {
struct Hook {
  std::string action, point;
  int rank = -1, nth = 1, seen = 0;
};

Hook* parse_hook() {
  const char* s = std::getenv("TANDEM_TEST_HOOK");
  if (!s || !*s) return nullptr;
  auto* h = new Hook;
  char action[16] = {}, point[64] = {};
  const int n = std::sscanf(s, "%15[^:]:%63[^:]:%d:%d", action, point, &h->rank, &h->nth);
  h->action = action, h->point = point;
  if (n < 3 || (h->action != "fail" && h->action != "stall") || h->nth < 1) {
    std::fprintf(stderr, "error: TANDEM_TEST_HOOK=%s: want fail|stall:POINT:RANK[:NTH]\n", s);
    std::exit(4);
  }
  return h;
}
}  // namespace

void test_point(const char* point) {
  static Hook* hook = parse_hook();
  if (!hook || hook->point != point || hook->rank != launcher_rank() || ++hook->seen != hook->nth) return;
  std::fprintf(stderr, "[tandem test hook] rank %d: %s in %s (TANDEM_TEST_HOOK)\n", hook->rank,
               hook->action == "fail" ? "failing" : "stalling", point);
  std::fflush(stderr);
  if (hook->action == "fail")
    throw Error(ErrorKind::internal, cat("test hook: deliberate failure in ", point, " on rank ", hook->rank));
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}
#else
void test_point(const char*) {}
#endif

}  // namespace tandem::comm
