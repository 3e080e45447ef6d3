// The scan_hoist suite's own pieces: the streaming oracles agree exactly with reference_eval
// (they are what large cases are checked against), and the tolerance model orders the
// summation schemes as the analysis says it should.
#include <gtest/gtest.h>

#include "suites/common/reference_bridge.h"
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
