// The cuBLAS compute type and math mode of each DotAlgorithm preset: the one statement of them. The engine's
// dot_general (dot_cuda.cc) and the dot suite's cublasGemmEx baseline (suites/dot/dot_perf_cases.cc) both read it, so
// the baseline runs exactly the GEMM the engine runs for that preset and a change to one cannot leave the other behind.
#pragma once
#include <cublas_v2.h>

#include <optional>

#include "engine/core/dot_algorithm_types.h"

namespace tandem::cuda_impl {

struct CublasMode {
  cublasComputeType_t compute;
  cublasMath_t math;         // set on the handle before the GEMM
  const char* compute_name;  // for records: "CUBLAS_COMPUTE_32F_PEDANTIC", ...
  const char* math_name;
};

// nullopt: the preset has no cuBLAS GEMM (integers, FP8, BF16_BF16_BF16's device loop).
std::optional<CublasMode> cublas_mode(DotAlgorithm a);

// Sets mode.math on h (the engine's handle is shared by every preset, so before each GEMM).
void apply_math_mode(cublasHandle_t h, const CublasMode& mode);

}  // namespace tandem::cuda_impl
