// Scan hoisting's gradient side as a unit test: the gradient of the hoisted MSE saves no length × batch
// residual (asserted on the saved residuals' shapes), while the original's does; both
// gradients match the closed form; the hoisted forward + backward peaks lower.
#include <gtest/gtest.h>

#include "engine/passes/hoist_scan_reductions.h"
#include "engine/passes/saved_residuals.h"
#include "engine/passes/vjp.h"
#include "suites/scan_hoist/scan_hoist_grad.h"
#include "suites/scan_hoist/scan_hoist_measure.h"
#include "suites/scan_hoist/scan_hoist_workloads.h"

namespace tandem {
namespace {

constexpr int64_t L = 24;
const Shape kRow = {6, 10};  // E = 60 elements per step

TEST(ScanHoistGrad, HoistedGradientSavesNoLengthTimesBatchResidual) {
  Workload w = mse_workload(L, kRow);
  HoistResult h = hoist_scan_reductions(w.program, {.min_step_elements = 0});
  ASSERT_EQ(h.rewrites, 1);
  const int64_t LE = L * w.per_step;
  // The hoisted program under nothing_saveable: a scan is partially
  // evaluated under the policy (JAX's rule), and everything_saveable would stack the per-step
  // difference; the original keeps its stacked difference under the default policy.
  SavedResiduals so = saved_residuals(vjp(w.program)), sh = saved_residuals(vjp(h.program, {}, nothing_saveable()));
  std::string largest;
  EXPECT_EQ(residuals_of_at_least(sh, LE), 0) << format_saved_residuals(sh);
  // Every non-argument residual of the hoisted gradient is O(L + E): per-step carries
  // ([L, 5, 8]) or per-step partials, never a stacked row.
  EXPECT_LT(largest_residual_elements(sh, &largest), LE) << largest;
  for (const Residual& r : sh.residuals) {
    if (!r.is_argument) {
      EXPECT_LE(num_elements(r.type.shape), L * 40 + w.per_step) << r.type.str() << " " << r.source;
    }
  }
  // The original keeps at least the stacked difference y − ys for integer_pow's vjp.
  EXPECT_GE(residuals_of_at_least(so, LE), 1) << format_saved_residuals(so);
}

TEST(ScanHoistGrad, GradientsMatchClosedFormAndPeakDrops) {
  Workload w = mse_workload(L, kRow);
  Program hp = hoist_scan_reductions(w.program, {.min_step_elements = 0}).program;
  std::vector<Tensor> in = seeded_inputs(w.program, "grad_test");
  GradMeasured mo = measure_vjp(vjp(w.program), in, 0, Device::cpu());
  GradMeasured mh = measure_vjp(vjp(hp), in, 0, Device::cpu());
  auto want = mse_gradient_closed_form(in);
  double tol = 64 * unit_roundoff(DType::f32) * 4.0 / double(L * w.per_step);
  for (const GradMeasured* m : {&mo, &mh}) {
    ASSERT_EQ(m->cotangents.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      std::vector<double> got = m->cotangents[i].to_f64();
      ASSERT_EQ(got.size(), want[i].size());
      for (size_t k = 0; k < got.size(); ++k) ASSERT_NEAR(got[k], want[i][k], tol) << "input " << i << " at " << k;
    }
  }
  EXPECT_LT(mh.peak_above_inputs, mo.peak_above_inputs);
}

}  // namespace
}  // namespace tandem
