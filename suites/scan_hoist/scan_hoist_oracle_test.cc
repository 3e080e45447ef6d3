// The scan_hoist suite's own pieces: the streaming oracles agree exactly with reference_eval
// (they are what large cases are checked against), the tolerance model orders the
// summation schemes as the analysis says it should, and the data-derived check can fail.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/ir/executor.h"

#include "bridge/reference_bridge.h"
#include "suites/scan_hoist/scan_hoist_cases.h"
#include "suites/scan_hoist/scan_hoist_measure.h"

namespace tandem {
namespace {

double reference_scalar(const Workload& w, const std::vector<Tensor>& in) {
  std::vector<ref::Array> r;
  for (const Tensor& t : in) r.push_back(to_ref(t));
  return reference_eval(w.program, r).at(0).data.at(0);
}

TEST(ScanHoistOracle, MatchesReferenceEvalExactly) {
  for (DType dt : {DType::f32, DType::bf16}) {
    Workload mse = mse_workload(13, {6, 7}, dt, /*reverse=*/true);
    std::vector<Tensor> in = seeded_inputs(mse.program, "oracle/mse");
    EXPECT_EQ(mse.oracle(in).at(0), reference_scalar(mse, in)) << dtype_name(dt);
    Workload sm = sin_mean_workload(11, {4, 5}, dt);
    in = seeded_inputs(sm.program, "oracle/sin_mean");
    EXPECT_EQ(sm.oracle(in).at(0), reference_scalar(sm, in)) << dtype_name(dt);
  }
}

TEST(ScanHoistTolerance, HoistedSumsHaveShorterChains) {
  SumModel m{100'000'000, 1e-8, 4.0, 6.0, 1'000'000, 100};
  double original = sum_tolerance(m, DType::f32, false, {}).abs;
  double stacked = sum_tolerance(m, DType::f32, true, {}).abs;
  double wide = sum_tolerance(m, DType::f32, true, hoist_options("wide", DType::f32)).abs;
  EXPECT_GT(original, 50 * stacked);  // 10^8 vs ~10^6 additions in one chain
  EXPECT_LT(wide, stacked / 50);      // f64 accumulation: only the final rounding is left
  // bf16 partials: stacking rounds every partial to bf16, so hoisting costs accuracy there.
  SumModel small{4096, 1.0 / 4096, 4.0, 6.0, 64, 64};
  EXPECT_GT(sum_tolerance(small, DType::bf16, true, {}).abs, sum_tolerance(small, DType::bf16, false, {}).abs);
}

TEST(ScanHoistGrowth, Exponents) {
  EXPECT_NEAR(growth_exponent(10, 1, 20, 2), 1.0, 1e-12);
  EXPECT_NEAR(growth_exponent(10, 1, 20, 4), 2.0, 1e-12);
  EXPECT_EQ(growth_exponent(10, 0, 20, 4), 0.0);
}

}  // namespace
}  // namespace tandem

namespace tandem {
namespace {

// The data-derived check bites: a hoisted MSE that lost the last of its 64 steps (its
// output less that step's contribution, ~1/64 of the mean) fails it, while the first-order
// worst case from the term bound (the earlier tolerance) would have let it pass.
TEST(ScanHoistTolerance, DroppingOneStepFailsTheCheck) {
  const int64_t L = 64;
  const Shape row = {128, 128};
  Workload w = mse_workload(L, row);
  std::vector<Tensor> in = seeded_inputs(w.program, "tolerance/drop_step");
  HoistOptions opts = hoist_options("stacked", DType::f32);
  HoistResult h = hoist_scan_reductions(w.program, opts);
  ASSERT_EQ(h.rewrites, 1);
  double got = Executor(Device::cpu()).run(h.program, in).at(0).to_f64().at(0);
  double want = w.oracle(in).at(0);

  // Step L−1's share of the mean, from the same inputs.
  int64_t E = num_elements(row), n = L * E;
  double last = 0;
  for (int64_t e = 0; e < E; ++e) {
    double d = load_as_f64(in[2].raw(), in[2].dtype(), (L - 1) * E + e) -
               std::cos(load_as_f64(in[1].raw(), in[1].dtype(), (L - 1) * E + e));
    last += d * d;
  }
  double dropped = got - last / double(n);

  ErrorSpec check = probabilistic_sum_tolerance(w.model, w.dtype, true, opts, w.abs_total(in));
  EXPECT_TRUE(compare({want}, {got}, check).pass) << check.why;
  CompareReport bad = compare({want}, {dropped}, check);
  EXPECT_FALSE(bad.pass) << "a dropped step passed: " << bad.text() << " tol " << check.abs;
  EXPECT_GT(bad.max_ratio, 10.0) << "the dropped step should miss by an order of magnitude";
  // The unhoisted program's check (one chain of L·E = 2^20 additions) bites too; its old
  // bound, n·u·n·max|term|, is ~0.25 here and would have passed the dropped step.
  ErrorSpec original = probabilistic_sum_tolerance(w.model, w.dtype, false, opts, w.abs_total(in));
  EXPECT_FALSE(compare({want}, {dropped}, original).pass) << original.why;
  ErrorSpec old_bound = sum_tolerance(w.model, w.dtype, false, opts);
  EXPECT_TRUE(compare({want}, {dropped}, old_bound).pass) << "the old bound was expected to be too loose";
}

}  // namespace
}  // namespace tandem
