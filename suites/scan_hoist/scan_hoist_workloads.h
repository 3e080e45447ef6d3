// The scan_hoist suite's programs: the seed's MSE and stacked sin/mean at any length and row
// shape, the pass's harder shapes (nested scans, several ys, dependent reductions), the
// programs it must decline, and for each reduction an error model from which tolerances
// are derived (scan_hoist_tolerance.cc).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "bridge/error_spec.h"
#include "engine/core/tensor.h"
#include "engine/ir/ir.h"
#include "engine/passes/hoist_scan_reductions.h"

namespace tandem {

// Each checked output element is scale × Σ of `terms` terms with |term| ≤ term_bound, each
// term exact to within pointwise_units roundoffs (× term_bound). Summation order: the
// unhoisted program adds all terms in one sequential chain; the hoisted one adds
// per_step_chain terms inside a step, then step_chain partials across steps.
struct SumModel {
  int64_t terms = 1;
  double scale = 1;
  double term_bound = 1;
  double pointwise_units = 4;
  int64_t per_step_chain = 1;
  int64_t step_chain = 1;
};

// Worst-case (first-order) bound on |got − exact|, for the unhoisted or hoisted program;
// abs_total > 0 is scale·Σ|terms| computed from the inputs, else the model's bound is used.
ErrorSpec sum_tolerance(const SumModel& m, DType dtype, bool hoisted, const HoistOptions& o, double abs_total = 0);
// The check when Σ|terms| is known from the data: the probabilistic λ·√n·u model, or the
// worst case with the reason where that model does not hold (scan_hoist_measure.cc).
ErrorSpec probabilistic_sum_tolerance(const SumModel& m, DType dtype, bool hoisted, const HoistOptions& o,
                                      double abs_total);

struct Workload {
  std::string kind;
  Program program;
  int64_t length = 0;    // L: scan steps (outermost scan)
  int64_t per_step = 0;  // E: elements of one step's stacked value
  DType dtype = DType::f32;
  SumModel model;
  int expected_rewrites = 1;
  // scale·Σ|terms| of the checked output computed from the inputs (f64): the data-derived
  // bound of the tolerance. Empty: the model's term_bound is used (worst case).
  std::function<double(const std::vector<Tensor>&)> abs_total;
  // Integer inputs and integer-exact ops, every partial sum < 2^24: compared exactly.
  bool exact = false;
  // Outputs returned as is (no reduction): checked elementwise, not with the sum model.
  std::vector<size_t> elementwise_outputs;
  // Streaming oracle built on tandem::ref ops, one step at a time (O(E) memory), for sizes
  // where reference_eval would hold L×E doubles. Empty: use reference_eval.
  std::function<std::vector<double>(const std::vector<Tensor>&)> oracle;
};

// loss = mean((y − scan(λc,x: (sin c, cos x), x1[5,8], x2).ys)²), x2 and y of shape [L, row].
Workload mse_workload(int64_t L, const Shape& row, DType dt = DType::f32, bool reverse = false, int64_t unroll = 1);
// mean(scan(λc: (sin c, sin c), x[row], length=L).ys).
Workload sin_mean_workload(int64_t L, const Shape& row, DType dt = DType::f32);
// mean over [outer, inner, E] of an outer scan whose body scans cos over its [inner, E] slice.
Workload nested_mean_workload(int64_t outer, int64_t inner, int64_t E);
// A scan with three ys: one reduced through exp(ys0 − ys2) per step, one returned as is.
Workload several_ys_workload(int64_t L, int64_t E);
// sin of xs [L, B, F] reduced three ways: {0,1,2}, {1,2}, {0,2}; they share axis 2. With
// `integers`, 2·x instead of sin x on integer inputs: every sum exact, compared exactly.
Workload dependent_sums_workload(int64_t L, int64_t B, int64_t F, bool integers = false);
// sum(scan(λc,x: (c + x, 2x + c), 0, xs[L, row]).ys) on integer inputs in [-8, 8]: exact.
// The ys depend on the carry, so the sum depends on the direction (reverse) of the steps.
Workload int_sum_workload(int64_t L, const Shape& row, bool reverse = false);

struct DeclineWorkload {
  std::string kind;
  Program program;
  std::string reason;  // the tag the pass must give (hoist_scan_reductions.h)
};
std::vector<DeclineWorkload> decline_workloads();

}  // namespace tandem
