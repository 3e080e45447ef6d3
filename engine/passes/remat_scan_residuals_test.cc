// A scan's residuals as JAX's _scan_partial_eval has them: a loop-invariant one (a weight's transpose computed in the
// body from the consts) is saved once, unstacked, under every policy; and under remat (a checkpoint around the scan, or
// a top-level policy) the backward replays the forward once, stacking what the backward scan reads, which then
// recomputes nothing: each forward application is re-run at most once, as JAX's transposed remat does. Each property
// also fails under the fault that restores the old behaviour.
#include <gtest/gtest.h>

#include "engine/core/faults.h"
#include "engine/passes/remat_scan_test_util.h"
#include "engine/prims/checkpoint.h"

namespace tandem {
namespace {
using namespace remat_scan_test;

constexpr int64_t kT = 5, kB = 2, kH = 3;

// The RNN step h' = tanh(x·Uᵀ + h·Wᵀ) (y = h'): Wᵀ and Uᵀ are computed from the consts.
Program rnn_scan() {
  AType w{{kH, kH}, DType::f32}, h{{kB, kH}, DType::f32}, x{{kB, kH}, DType::f32}, xs{{kT, kB, kH}, DType::f32};
  Program step = trace({w, w, h, x}, [](Builder&, const V& v) {
    Value hn = tanh(dot(v[3], transpose(v[1], {1, 0})) + dot(v[2], transpose(v[0], {1, 0})));
    return V{hn, logistic(hn)};
  });
  return trace({w, w, h, xs}, [&](Builder&, const V& v) { return scan(step, {v[0], v[1]}, {v[2]}, {v[3]}, kT); });
}

Value loss(const V& o) { return reduce_sum(o[0] * o[0], {0, 1}) + reduce_sum(o[1] * o[1], {0, 1, 2}); }

// policy "": the scan at the top level, no checkpoint; else checkpoint(policy) around it.
Program rnn_loss(const std::string& policy) {
  Program net = rnn_scan();
  return trace(net.in_types(), [&](Builder&, const V& v) {
    return V{loss(policy.empty() ? inline_program(*v[0].builder(), net, v) : checkpoint(net, v, policy))};
  });
}

// Residuals with a leading [T] that stack an [H, H] value per step.
int stacked_matrices(const VjpProgram& v) {
  int n = 0;
  for (const Residual& r : v.residuals) n += r.type.shape == Shape{kT, kH, kH};
  return n;
}

const char* kPolicies[] = {"", "everything_saveable", "nothing_saveable", "dots_saveable",
                           "offload_dot_with_no_batch_dims(device,pinned_host)"};

TEST(ScanResiduals, LoopInvariantResidualsAreSavedOnce) {
  std::vector<Tensor> in = ramp_inputs(rnn_loss("").in_types());
  VjpProgram base = vjp(rnn_loss(""));
  VjpRun want = run_vjp(base, in, ramp_cts(base));
  int hoisted = 0;
  for (const Residual& r : base.residuals)
    if (r.source.find("loop-invariant over 5 scan steps") != std::string::npos) {
      EXPECT_EQ(r.type.shape, (Shape{kH, kH})) << r.source;
      ++hoisted;
    }
  EXPECT_EQ(hoisted, 2) << format_saved_residuals(saved_residuals(base));  // Wᵀ and Uᵀ, once each
  for (const char* pol : kPolicies) {
    VjpProgram v = vjp(rnn_loss(pol));
    EXPECT_EQ(stacked_matrices(v), 0) << pol << "\n" << format_saved_residuals(saved_residuals(v));
    // Not saved: computed once in the backward, never per step.
    EXPECT_LE(v.recompute.by_prim["transpose"], 2) << pol;
    VjpRun run = run_vjp(v, in, ramp_cts(v));  // the gradients of the scan without checkpoint, bit for bit
    for (size_t i = 0; i < run.cotangents.size(); ++i)
      EXPECT_EQ(run.cotangents[i].to_f64(), want.cotangents[i].to_f64()) << pol << " cotangent " << i;
    if (*pol) expect_honest_counts(rnn_loss, pol);
  }
  // The old behaviour (the fault): each transpose stacked [T, H, H].
  inject_fault("remat_scan_invariant_stacked");
  const int old = stacked_matrices(vjp(rnn_loss("")));
  inject_fault("");
  EXPECT_EQ(old, 2);
}

// Each application the forward runs, the backward re-runs at most once: the replay stacks what the backward scan reads.
// Under nothing_saveable every tanh, logistic and dot of the scan is re-run exactly once (JAX's counts for the same
// program, jax.checkpoint(f, nothing_saveable): 5 tanh, 5 logistic, 10 dot_general).
TEST(ScanResiduals, ReplayedValuesAreComputedOnce) {
  auto forward_applications = [](const Program& p) {
    RecomputeStats s;
    for (const Eqn& e : p.eqns) s.add(applications(e));
    return s.by_prim;
  };
  for (const char* pol : {"nothing_saveable", "dots_saveable"}) {
    VjpProgram v = vjp(rnn_loss(pol));
    std::map<std::string, int64_t> fwd = forward_applications(*rnn_loss(pol).eqns.at(0).params.get_program("body"));
    for (auto& [prim, n] : v.recompute.by_prim) EXPECT_LE(n, fwd[prim]) << pol << " " << prim;
    expect_honest_counts(rnn_loss, pol);
  }
  VjpProgram none = vjp(rnn_loss("nothing_saveable"));
  EXPECT_EQ(none.recompute.by_prim["tanh"], kT);
  EXPECT_EQ(none.recompute.by_prim["logistic"], kT);
  EXPECT_EQ(none.recompute.by_prim["dot_general"], 2 * kT);
  // The same under a top-level policy, which puts the whole program under remat.
  VjpProgram top = vjp(rnn_loss(""), {}, nothing_saveable());
  EXPECT_EQ(top.recompute.by_prim["tanh"], kT);
  EXPECT_EQ(top.recompute.by_prim["dot_general"], 2 * kT);
  // The old behaviour (the fault): the replay, then the backward scan again.
  inject_fault("remat_scan_recomputes_twice");
  VjpProgram twice = vjp(rnn_loss("nothing_saveable"));
  inject_fault("");
  EXPECT_EQ(twice.recompute.by_prim["tanh"], 2 * kT);
}

}  // namespace
}  // namespace tandem
