// The preset → cuBLAS compute type / math mode table (see cublas_modes.h).
#include "engine/cuda/cublas_modes.h"

#include "engine/core/check_cuda.h"

namespace tandem::cuda_impl {

#define TANDEM_MODE(compute, math) CublasMode{compute, math, #compute, #math}

std::optional<CublasMode> cublas_mode(DotAlgorithm a) {
  using A = DotAlgorithm;
  switch (a) {
    case A::F64_F64_F64: return TANDEM_MODE(CUBLAS_COMPUTE_64F, CUBLAS_DEFAULT_MATH);
    // f32 exactly: PEDANTIC keeps cuBLAS from any reduced-precision path (TF32 included,
    // whatever NVIDIA_TF32_OVERRIDE or the handle say).
    case A::F32_F32_F32: return TANDEM_MODE(CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_PEDANTIC_MATH);
    // TF32 operands: the engine rounds them to tf32 itself first (dot_kernels.h, round_tf32);
    // FAST_TF32 then lets cuBLAS use the tensor cores on them.
    case A::TF32_TF32_F32:
    case A::TF32_TF32_F32_X3: return TANDEM_MODE(CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_DEFAULT_MATH);
    case A::F16_F16_F16: return TANDEM_MODE(CUBLAS_COMPUTE_16F, CUBLAS_DEFAULT_MATH);
    // bf16 / f16 storage with an f32 accumulator; the splits' parts are bf16.
    case A::BF16_BF16_F32:
    case A::F16_F16_F32:
    case A::BF16_BF16_F32_X3:
    case A::BF16_BF16_F32_X6:
    case A::BF16_BF16_F32_X9: return TANDEM_MODE(CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH);
    default: return std::nullopt;
  }
}

#undef TANDEM_MODE

void apply_math_mode(cublasHandle_t h, const CublasMode& mode) {
  CUBLAS_CHECK(cublasSetMathMode(h, mode.math));
}

}  // namespace tandem::cuda_impl
