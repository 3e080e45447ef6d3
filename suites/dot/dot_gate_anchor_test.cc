// The CPU dot presets' gate anchor (harness/anchor.h) is the f32 product on the library the
// engine's dot calls (cpu::sgemm), named after it: an anchor on another library (OpenBLAS
// beside a oneDNN engine) put two threading runtimes side by side, and the single-run gate's
// A/A ratio moved 0.4-2.7x between runs of one build (docs/CI.md, the single-run gate).
#include <gtest/gtest.h>

#include "engine/cpu/sgemm.h"
#include "harness/harness.h"

namespace tandem {
namespace {

TEST(DotGateAnchor, PresetsAnchorOnTheEnginesProductLibrary) {
  const std::string want = std::string("sgemm/") + cpu::sgemm_library() + "/N:512";
  int presets = 0;
  for (const Case* c : registry().select("nightly", "dot", "perf/N:512/alg:")) {
    CaseInstance inst = c->instantiate(Device::cpu());
    EXPECT_EQ(inst.anchor_name, want) << c->name;
    ASSERT_TRUE(bool(inst.anchor)) << c->name;
    inst.anchor();  // the call runs on the case's own operands
    ++presets;
  }
  EXPECT_GE(presets, 7);
}

TEST(DotGateAnchor, TheBlasCaseTakesTheCanary) {
  for (const Case* c : registry().select("nightly", "dot", "perf/N:512/blas_sgemm")) {
    RunOptions opts;
    opts.warmup = 3, opts.repetitions = 3, opts.check = false;  // the canary sized on warm calls (its first JITs)
    CaseResult r = run_case(*c, opts);
    EXPECT_EQ(r.anchor_kind, "canary") << r.message;
    EXPECT_GE(r.anchor_calls, 2) << "a 512³ sgemm lasts several 256³ canary calls";
  }
}

}  // namespace
}  // namespace tandem
