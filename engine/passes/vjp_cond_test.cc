// The vjp of cond (engine/prims/cond_rules.cc): for each index, the cotangents equal those of
// the chosen branch differentiated alone; under remat the backward re-runs the cond, and the
// recompute report counts its costliest branch, an upper bound of what the executor runs
// (the counts differed from the executed ones when every branch was counted).
#include <gtest/gtest.h>

#include "engine/ir/executor.h"
#include "engine/passes/remat_scan_test_util.h"
#include "engine/passes/saved_residuals.h"
#include "engine/prims/cond.h"

namespace tandem {
namespace {
using namespace remat_scan_test;

const AType kX{{4}, DType::f32};

// Branch 0: two sin and a mul; branch 1: a sin and an exp; the cond's output goes through a tanh.
std::vector<Program> branches() {
  return {trace({kX}, [](Builder&, const V& a) { return V{sin(sin(a[0])) * a[0]}; }),
          trace({kX}, [](Builder&, const V& a) { return V{exp(sin(a[0]))}; })};
}

Program with_index(int index) {
  const std::vector<Program> br = branches();
  return trace({kX}, [&](Builder& b, const V& a) {
    return V{tanh(cond(b.literal(index, DType::i32), br, {a[0]})[0])};
  });
}

TEST(VjpCond, CotangentsAreTheChosenBranchs) {
  const std::vector<Program> br = branches();
  for (int index : {0, 1, -1, 5}) {
    const Program& chosen = br[index == 0 ? 0 : 1];
    Program alone = trace({kX}, [&](Builder& b, const V& a) { return V{tanh(inline_program(b, chosen, a)[0])}; });
    std::vector<Tensor> in = ramp_inputs({kX});
    VjpProgram g = vjp(with_index(index)), want = vjp(alone);
    std::vector<double> got = run_vjp(g, in, ramp_cts(g)).cotangents.at(0).to_f64();
    std::vector<double> w = run_vjp(want, in, ramp_cts(want)).cotangents.at(0).to_f64();
    ASSERT_EQ(got.size(), w.size());
    for (size_t i = 0; i < w.size(); ++i) EXPECT_FLOAT_EQ(float(got[i]), float(w[i])) << "index " << index << " at " << i;
  }
}

TEST(VjpCond, RecomputeCountsBoundTheBranchThatRuns) {
  for (int index : {0, 1}) {
    Program p = with_index(index);
    VjpProgram g = vjp(p, {}, policy_from_string("nothing_saveable"));
    // The costliest branch per primitive: two sin (branch 0), one exp (branch 1), one mul;
    // counting every branch reported three sin.
    EXPECT_EQ(g.recompute.by_prim["sin"], 2);
    EXPECT_EQ(g.recompute.by_prim["exp"], 1);
    EXPECT_EQ(g.recompute.by_prim["cond"], 1);
    std::vector<Tensor> in = ramp_inputs({kX});
    const VjpProgram base = vjp(p);
    for (const auto& [prim, n] : executed_recompute(g, base, in, ramp_cts(g)))
      EXPECT_LE(n, g.recompute.by_prim[prim]) << prim << " at index " << index;
  }
}

}  // namespace
}  // namespace tandem
