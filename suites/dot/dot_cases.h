// Further dot suite case families, each in its own file.
#pragma once
#include <vector>

#include "engine/core/tensor.h"
#include "reference/reference.h"

namespace tandem {
class Registry;
// Inf/NaN through every preset, and the accuracy ordering of presets on shared inputs.
void register_dot_special_cases(Registry& r);
// Input rounding pinned to round-to-nearest; Inf against a right-hand side with lo = 0 (dot_rounding_cases.cc).
void register_dot_rounding_cases(Registry& r);
// GFLOP/s of dot_general f32 at 512/1024/2048 vs the BLAS called directly; X3/X6/X9 cost.
void register_dot_perf_cases(Registry& r);
// Σ_k |a||b| per output element (dot_suite.cc).
std::vector<double> dot_abs_scale(const Tensor& lhs, const Tensor& rhs, const ref::DotDims& d);
}  // namespace tandem
