// Memory–time table of the remat policies (lab/README.md "## Rematerialization"): an 8-layer MLP with each layer
// checkpointed, and recursive checkpointing of a sin chain. Disabled by default (a measurement, not a check); run with
//   remat_measure_test --gtest_also_run_disabled_tests
// The enabled test checks the ordering of measured peaks and the 10% prediction bound on a small instance, quickly.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "engine/core/allocator.h"
#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/passes/saved_residuals.h"
#include "harness/harness.h"
#include "harness/program_case.h"
#include "suites/remat/remat_models.h"

namespace tandem {
namespace {

struct Row {
  std::string policy;
  int64_t residuals, residual_bytes, offloaded, predicted, measured, recomputed;
  double flops, seconds;
};

// One policy's program, inputs and memory figures; its time is taken by table().
struct Measured {
  Row row;
  VjpProgram v;
  std::vector<Tensor> in;
};

Measured measure(const remat::Model& m, const std::string& policy) {
  VjpProgram v = vjp(m.build(DType::f32, policy));
  std::vector<Tensor> in;
  for (size_t i = 0; i < v.forward.in_vars.size(); ++i) {
    const AType& t = v.forward.in_vars[i]->type;
    if (t.dtype == DType::i32)  // the LSTM's seq_lengths: every sequence full length
      in.push_back(Tensor::from_f64(std::vector<double>(size_t(num_elements(t.shape)), double(m.seq)), t.shape, t.dtype));
    else in.push_back(seeded_uniform(t.shape, DType::f32, cat(m.label(), i), -0.1, 0.1));
  }
  std::vector<Tensor> ct{Tensor::scalar(1, DType::f32)};
  int64_t in_bytes = 0;
  for (const Tensor& t : in) in_bytes += int64_t(t.nbytes());
  Allocator& A = Allocator::instance();
  int64_t live0 = A.stats(Device::cpu()).live_bytes;
  A.reset_peak(Device::cpu());
  A.reset_transfers(DeviceKind::cpu);
  run_vjp(v, in, ct);
  int64_t measured = A.stats(Device::cpu()).peak_bytes - live0 + in_bytes;
  int64_t offloaded = A.transfers(DeviceKind::cpu).to_host_bytes;  // moved to pinned_host, measured
  SavedResiduals s = saved_residuals(v);
  Row r{policy, s.count_non_arguments(), s.bytes - s.argument_bytes, offloaded,
        predicted_vjp_peak_bytes(v), measured, s.recompute.eqns, s.recompute.flops, 0};
  return {r, std::move(v), std::move(in)};
}

// Times are interleaved across policies (rep r of every policy before rep r + 1 of any), and
// the median of reps is reported: a load spike on the shared machine hits all policies alike.
std::vector<Row> table(const remat::Model& m, int reps) {
  std::vector<Measured> ms;
  for (const std::string& p : remat::policies_for(m)) ms.push_back(measure(m, p));
  std::vector<std::vector<double>> t(ms.size());
  std::vector<Tensor> ct{Tensor::scalar(1, DType::f32)};
  for (int r = 0; r < reps; ++r)
    for (size_t i = 0; i < ms.size(); ++i) {
      auto t0 = std::chrono::steady_clock::now();
      run_vjp(ms[i].v, ms[i].in, ct);
      t[i].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  std::vector<Row> rows;
  std::printf("%s\n| policy | residuals | residual MB | offloaded MB | predicted peak MB | measured peak MB | "
              "recomputed eqns | recomputed GFLOP | fwd+bwd ms |\n|---|---|---|---|---|---|---|---|---|\n",
              m.label().c_str());
  for (size_t i = 0; i < ms.size(); ++i) {
    Row r = ms[i].row;
    if (reps > 0) {
      std::sort(t[i].begin(), t[i].end());
      r.seconds = t[i][t[i].size() / 2];
    }
    std::string cell;  // a '|' in a policy's name (act|pre) would end the Markdown cell: escape it
    for (char ch : r.policy) cell += ch == '|' ? std::string("\\|") : std::string(1, ch);
    std::printf("| %s | %lld | %.2f | %.2f | %.2f | %.2f | %lld | %.3f | %.2f |\n", cell.c_str(),
                (long long)r.residuals, r.residual_bytes / 1e6, r.offloaded / 1e6, r.predicted / 1e6,
                r.measured / 1e6, (long long)r.recomputed, r.flops / 1e9, r.seconds * 1e3);
    rows.push_back(r);
  }
  return rows;
}

const Row& row(const std::vector<Row>& rows, const std::string& p) {
  return *std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.policy == p; });
}

void check_done_when(const std::vector<Row>& rows, bool timing) {
  const Row &nothing = row(rows, "nothing_saveable"), &dots = row(rows, "dots_saveable"),
            &every = row(rows, "everything_saveable");
  EXPECT_LT(nothing.measured, dots.measured);
  EXPECT_LT(dots.measured, every.measured);
  for (const Row& r : rows)
    EXPECT_LE(std::abs(double(r.measured - r.predicted)), 0.10 * double(r.predicted)) << r.policy;
  if (timing) {
    EXPECT_LE(nothing.seconds, 1.4 * every.seconds);
  }
}

TEST(RematMeasure, SmallMlpOrderingAndPrediction) {
  check_done_when(table(remat::Model{"mlp", 8, 64, 64, 1, {"pre", "act"}}, 1), false);
}

// The suite's checks really run: each quick remat case compared against the f64 reference's
// reverse mode, and that reverse mode against the reference's central differences.
TEST(RematSuite, QuickCasesCheckAgainstTheReference) {
  RunOptions o;
  o.time = false;
  int n = 0;
  for (const Case* c : registry().select("quick", "remat", "")) {
    CaseResult r = run_case(*c, o);
    EXPECT_EQ(r.verdict, Verdict::pass) << c->name << r.message;
    EXPECT_TRUE(r.correctness.value("checked_against_reference", false)) << c->name;
    double err = r.correctness.value("max_abs_err_vs_reference", 1.0);
    double ref_vs_fd = r.correctness.value("reference_tape_vs_fd_max_abs", 1.0);
    double scale = r.correctness.value("reference_grad_scale", 0.0);
    EXPECT_GT(scale, 0) << c->name;
    EXPECT_LE(err, 1e-3 * scale) << c->name;
    EXPECT_LE(ref_vs_fd, 1e-6 * scale) << c->name;  // f64 tape vs f64 central differences
    ++n;
  }
  EXPECT_GE(n, 35);
}

// The sin chain's recompute counts reach the records: n = 16 re-runs 17 sins (JAX's DCE'd
// remat; sin's derivative reads its input, so each body's last sin is dead).
TEST(RematSuite, SinChainRecomputeCountsInRecords) {
  RunOptions o;
  o.time = false;
  auto recomputed = [&](const std::string& name) {
    std::vector<const Case*> cs = registry().select("quick", "remat", name);
    EXPECT_EQ(cs.size(), 1u) << name;
    CaseResult r = run_case(*cs.at(0), o);
    EXPECT_EQ(r.verdict, Verdict::pass) << name << r.message;
    for (const Metric& m : r.metrics)
      if (m.name == "recomputed_eqns") return m.value;
    ADD_FAILURE() << name << " has no recomputed_eqns metric";
    return -1.0;
  };
  EXPECT_EQ(recomputed("^remat/sin_chain/n:16/E:8/policy:nothing_saveable$"), 17);
}

// The LSTM Program path (a scan over the cell, checkpointed whole): the scan's per-step residuals are chosen by the
// policy and stacked, its carries rebuilt by the backward (as JAX), so nothing_saveable (the checkpoint's operands
// only) saves least and peaks below dots_saveable. Not below everything_saveable: as JAX's transposed remat, the
// backward's replay stacks, once, every per-step value the backward scan reads (what everything_saveable saves) and
// rebuilds x·W_ih [T, B, 4H] for it, so the two peaks are alike (the saved set lives through the forward, the replayed
// one through the backward). dots_saveable keeps the two [B, 4H] gate pre-activations per step, which the backward
// needs to re-run the gate nonlinearities; everything_saveable keeps the [B, H] activations instead: which is larger
// depends on the sizes (at H = 128 the dots are, lab/README.md "Remat inside scan"), as it would in JAX, so only the
// orderings that follow from the policy are asserted. The scan models' rows under nothing_saveable, dots_saveable and
// everything_saveable; nothing_saveable must save least and peak lowest, and everything_saveable recompute nothing.
struct ThreePolicies {
  const Row &nothing, &dots, &every;
};
// below_every: whether nothing_saveable must also peak below everything_saveable (not for a
// scan checkpointed whole, whose replay stacks what everything_saveable saves).
ThreePolicies nothing_lowest(const std::vector<Row>& rows, bool below_every = true) {
  ThreePolicies t{row(rows, "nothing_saveable"), row(rows, "dots_saveable"), row(rows, "everything_saveable")};
  for (const Row* r : {&t.dots, &t.every}) {
    EXPECT_LT(t.nothing.residual_bytes, r->residual_bytes) << r->policy;
    if (r == &t.dots || below_every) {
      EXPECT_LT(t.nothing.measured, r->measured) << r->policy;
    }
  }
  EXPECT_EQ(t.every.recomputed, 0);
  EXPECT_GT(t.nothing.recomputed, t.dots.recomputed);
  EXPECT_GT(t.dots.recomputed, 0);
  return t;
}

TEST(RematMeasure, LstmProgramPeakFollowsThePolicy) {
  nothing_lowest(table(remat::Model{"lstm", 1, 8, 32, 16, {"", ""}}, 1), false);
}

// scan_mlp: nothing < dots < everything in saved and in measured peak bytes.
TEST(RematMeasure, ScanMlpPeakFollowsThePolicy) {
  std::vector<Row> rows = table(remat::Model{"scan_mlp", 8, 32, 64, 1, {"pre", "act"}}, 1);
  ThreePolicies t = nothing_lowest(rows);
  EXPECT_LT(t.dots.measured, t.every.measured);
  EXPECT_LT(t.dots.residual_bytes, t.every.residual_bytes);
}

// The memory–time front of the scan models (lab/README.md "Remat inside scan").
TEST(RematMeasure, DISABLED_ScanModels) {
  table(remat::Model{"scan_mlp", 16, 128, 256, 1, {"pre", "act"}}, 9);
  table(remat::Model{"lstm", 1, 32, 128, 32, {"", ""}}, 9);
}

// The LSTM checkpointed whole with its carries stacked by the forward scan (the fault that
// mimics tandem's earlier engine), then replayed by the backward as in JAX: the before and
// after of lab/README.md "Remat inside scan", in one run.
TEST(RematMeasure, DISABLED_LstmCarriesStackedThenReplayed) {
  remat::Model lstm{"lstm", 1, 32, 128, 32, {"", ""}};
  inject_fault("remat_scan_carries_stacked");
  table(lstm, 9);
  inject_fault("");
  table(lstm, 9);
}

// A scan's loop-invariant residuals (rnn_wt: Wᵀ and Uᵀ computed in the step) stacked per step, then saved once; and the
// backward of a scan under remat recomputing each step twice (the replay, then the backward scan), then once (the
// replay stacks what the backward scan reads): the before and after of lab/pages/remat.md "Scan residuals as JAX's", in
// one run, each fault restoring the old engine. The LSTM at the suite's nightly size.
TEST(RematMeasure, DISABLED_ScanResidualsBeforeAfter) {
  for (const remat::Model& m : {remat::Model{"rnn_wt", 1, 16, 512, 64, {"", ""}},
                                remat::Model{"lstm", 1, 16, 512, 25, {"", ""}}})
    for (const char* fault : {"remat_scan_invariant_stacked", "remat_scan_recomputes_twice", ""}) {
      std::printf("\nfault: %s\n", *fault ? fault : "none (the fix)");
      inject_fault(fault);
      table(m, 3);
    }
  inject_fault("");
}

TEST(RematMeasure, DISABLED_Mlp8Layers) {
  check_done_when(table(remat::Model{"mlp", 8, 512, 512, 1, {"pre", "act"}}, 7), true);
}

TEST(RematMeasure, DISABLED_SinChain) {
  for (int n : {16, 64, 256}) table(remat::Model{"sin_chain", n, 1, 1 << 16, 1, {"", ""}}, 3);
}

}  // namespace
}  // namespace tandem
