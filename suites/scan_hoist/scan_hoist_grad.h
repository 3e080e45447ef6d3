// The gradient side of scan hoisting: residual inspection, forward +
// backward measurement, the MSE's closed-form gradient, and the suite case comparing the
// vjp of the original and of the hoisted MSE.
#pragma once
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/passes/saved_residuals.h"
#include "harness/case.h"

namespace tandem {

// Elements of the largest residual that is not a program input (0 if none); `source`
// receives its type and origin.
int64_t largest_residual_elements(const SavedResiduals& s, std::string* source = nullptr);
// Residuals (program inputs excluded) holding at least `elements` elements.
int64_t residuals_of_at_least(const SavedResiduals& s, int64_t elements);

// d loss / d (x1, x2, y) of mse_workload's program, in f64, from its inputs.
std::vector<std::vector<double>> mse_gradient_closed_form(const std::vector<Tensor>& in);

// A rank-0 tensor holding 1: the output cotangent of a scalar loss.
Tensor unit_cotangent(DType t);

struct GradMeasured {
  std::vector<Tensor> cotangents;
  int64_t peak_above_inputs = 0;  // bytes: Allocator peak of forward + backward − live before
  double median_s = 0;            // forward + backward
};
// One untimed forward + backward (peak recorded; output cotangent 1), then `reps` timed.
GradMeasured measure_vjp(const VjpProgram& v, const std::vector<Tensor>& inputs, int reps, Device d);

// scan_hoist/grad/mse/L:…/B:…/F:…: vjp of the original and of the hoisted MSE.
Case hoist_grad_case(int64_t L, const Shape& row, const std::string& profile, int reps);

}  // namespace tandem
