// CUDA dot_general: runs a resolved DotAlgorithm on device tensors with cuBLAS — compute type and math mode per preset
// from cublas_modes.h, TF32 operands rounded to tf32 (RNE) by tandem's own kernel rather than left to cuBLAS, split
// presets as one GEMM per partial product (small terms first, NaNs of the small-term sum zeroed before hi·hi),
// BF16_BF16_BF16 as a device loop — matching the CPU engine's numerics (engine/cpu/dot_cpu.h) preset by preset.
#pragma once
#include <vector>

#include "engine/core/tensor.h"
#include "engine/cpu/dot_cpu.h"
#include "engine/ir/primitive.h"

namespace tandem::cuda_impl {

// out[b, m, n] = Σ_k lhs[b, m, k] · rhs[b, k, n] in plan's canonical order, computed on
// `device`; integer operands (alg DEFAULT) are unsupported.
Tensor dot_general(const Tensor& lhs, const Tensor& rhs, const cpu::DotPlan& plan,
                   DotAlgorithm alg, DType out_dtype, Device device);

// The primitive's CUDA impl (attached by engine/cuda/cuda_backend.cc).
std::vector<Tensor> dot_general_impl(const std::vector<Tensor>& in, const Params& params, EvalContext& ctx);

}  // namespace tandem::cuda_impl
