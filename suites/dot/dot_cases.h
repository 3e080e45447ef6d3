// Further dot suite case families, each in its own file.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ir/ir.h"
#include "harness/case.h"
#include "reference/reference.h"

namespace tandem {
class Registry;
// f32[m,k] · f32[k,n] under a precision or DotAlgorithm preset (dot_special_cases.cc).
Program matmul(int64_t m, int64_t k, int64_t n, const std::string& preset);
// A quick 3×8 · 8×4 f32 case "dot/special/FAMILY/alg:PRESET" on seeded inputs (lhs uniform, rhs in [0.5, 1]) that
// `fill` then edits (lhs, rhs row-major), checked against the exact reference within the preset's error class.
using SpecialInputs = std::function<void(float* lhs, float* rhs)>;
Case special_inputs_case(const std::string& family, const std::string& preset, const SpecialInputs& fill);
// Inf/NaN through every preset, and the accuracy ordering of presets on shared inputs.
void register_dot_special_cases(Registry& r);
// Input rounding pinned to round-to-nearest; Inf against a right-hand side with lo = 0 (dot_rounding_cases.cc).
void register_dot_rounding_cases(Registry& r);
// GFLOP/s of dot_general f32 at 512/1024/2048 vs the BLAS called directly; X3/X6/X9 cost.
void register_dot_perf_cases(Registry& r);
// Σ_k |a||b| per output element (dot_suite.cc).
std::vector<double> dot_abs_scale(const Tensor& lhs, const Tensor& rhs, const ref::DotDims& d);
}  // namespace tandem
