// CHECK macros for the CUDA runtime and cuBLAS (the family and its formatter: check.h).
// CUDA_CHECK_LAUNCH() goes right after every <<<>>> launch: a bad launch configuration is
// reported at the launch that caused it, not at the next memcpy. "No GPU" is not reported
// here: use_cuda_device() (engine/cuda/cuda_device.h) turns it into "unsupported" first.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "engine/core/check.h"

namespace tandem::check {
// The current device, or kUnknownDevice when even that call fails.
inline int current_cuda_device() {
  int d = 0;
  return cudaGetDevice(&d) == cudaSuccess ? d : kUnknownDevice;
}
}  // namespace tandem::check

#define CUDA_CHECK(expr)                                                                   \
  do {                                                                                     \
    cudaError_t tandem_err_ = (expr);                                                      \
    if (tandem_err_ != cudaSuccess) {                                                      \
      (void)cudaGetLastError(); /* clear a non-sticky error so later calls start clean */  \
      ::tandem::check::throw_failure({"CUDA", #expr, __FILE__, __LINE__},                  \
                                     ::tandem::check::current_cuda_device(),               \
                                     cudaGetErrorString(tandem_err_));                     \
    }                                                                                      \
  } while (0)

// After a kernel launch: launch-configuration errors surface through cudaGetLastError.
#define CUDA_CHECK_LAUNCH()                                                                \
  do {                                                                                     \
    cudaError_t tandem_err_ = cudaGetLastError();                                          \
    if (tandem_err_ != cudaSuccess)                                                        \
      ::tandem::check::throw_failure({"CUDA", "kernel launch (cudaGetLastError)", __FILE__, \
                                      __LINE__},                                           \
                                     ::tandem::check::current_cuda_device(),               \
                                     cudaGetErrorString(tandem_err_));                     \
  } while (0)

#define CUBLAS_CHECK(expr)                                                                 \
  do {                                                                                     \
    cublasStatus_t tandem_st_ = (expr);                                                    \
    if (tandem_st_ != CUBLAS_STATUS_SUCCESS)                                               \
      ::tandem::check::throw_failure({"cuBLAS", #expr, __FILE__, __LINE__},                \
                                     ::tandem::check::current_cuda_device(),               \
                                     cublasGetStatusString(tandem_st_));                   \
  } while (0)
