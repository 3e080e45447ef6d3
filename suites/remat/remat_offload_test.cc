// The remat suite's offloading policies (CPU): every quick case under an offloading policy reports as offloaded_bytes
// the bytes device_put really moved to pinned host memory (and back), with the pinned_host pool's peak holding them,
// and measures a device peak no higher than the policy that saves the same values on the device; for the MLP, whose
// checkpointed layers are reloaded one at a time, lower by the offloaded bytes less one layer's reload.
#include <gtest/gtest.h>

#include <string>

#include "harness/harness.h"

namespace tandem {
namespace {

double metric(const CaseResult& r, const std::string& name) {
  for (const Metric& m : r.metrics)
    if (m.name == name) return m.value;
  ADD_FAILURE() << "no metric " << name;
  return -1;
}

// A case name as a regex matching only itself (policy names hold parentheses and '|').
std::string exactly(const std::string& name) {
  std::string r = "^";
  for (char ch : name) {
    if (std::string("\\^$.|?*+()[]{}").find(ch) != std::string::npos) r += '\\';
    r += ch;
  }
  return r + "$";
}

const char* kOffload = "offload_dot_with_no_batch_dims(device,pinned_host)";
const char* kSave = "dots_with_no_batch_dims_saveable";  // saves what kOffload offloads

TEST(RematOffload, QuickCasesMoveWhatTheyOffload) {
  RunOptions o;
  o.time = false;
  int n = 0, moving = 0;
  for (const Case* c : registry().select("quick", "remat", "offload")) {
    CaseResult r = run_case(*c, o);
    EXPECT_EQ(r.verdict, Verdict::pass) << c->name << r.message;
    EXPECT_TRUE(r.correctness.value("offloaded_bytes_moved", false)) << c->name;
    double off = metric(r, "offloaded_bytes");
    moving += off > 0;  // sin_chain has no dot to offload
    EXPECT_GE(metric(r, "pinned_host_peak_bytes"), off) << c->name;
    if (c->name.find(kOffload) != std::string::npos) {  // against the saving twin
      std::string twin = c->name.substr(0, c->name.find("policy:")) + "policy:" + kSave;
      std::vector<const Case*> t = registry().select("quick", "remat", exactly(twin));
      ASSERT_EQ(t.size(), 1u) << twin;
      CaseResult s = run_case(*t[0], o);
      EXPECT_LE(metric(r, "measured_peak_bytes"), metric(s, "measured_peak_bytes")) << c->name;
    }
    ++n;
  }
  EXPECT_GE(n, 9);       // 6 models × offload_dot, 3 naming models × save_and_offload
  EXPECT_GE(moving, 8);  // all but sin_chain's
}

TEST(RematOffload, MlpDevicePeakDropsByTheOffloadedBytes) {
  RunOptions o;
  o.time = false;
  auto result = [&](const std::string& policy) {
    std::vector<const Case*> c = registry().select("quick", "remat", exactly("remat/mlp/L:4/B:4/D:8/policy:" + policy));
    EXPECT_EQ(c.size(), 1u) << policy;
    return c.empty() ? CaseResult{} : run_case(*c[0], o);
  };
  CaseResult off = result(kOffload), save = result(kSave);
  const double offloaded = metric(off, "offloaded_bytes");
  const double layer = 4 * 8 * 4;  // one layer's pre, [B, D] f32: reloaded at the backward's peak
  EXPECT_EQ(offloaded, 4 * layer);
  EXPECT_GE(metric(save, "measured_peak_bytes") - metric(off, "measured_peak_bytes"), offloaded - layer);
}

}  // namespace
}  // namespace tandem
