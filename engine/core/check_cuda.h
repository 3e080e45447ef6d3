// CHECK macros for the CUDA runtime and cuBLAS (the family and its formatter: check.h).
// CUDA_CHECK_LAUNCH() goes right after every <<<>>> launch: a bad launch configuration is
// reported at the launch that caused it, not at the next memcpy. "No GPU" is not reported
// here: use_cuda_device() (engine/cuda/cuda_device.h) turns it into "unsupported" first.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "engine/core/check.h"

namespace tandem::check {
// The current device, or kUnknownDevice when even that call fails.
inline int current_cuda_device() {
  int d = 0;
  return cudaGetDevice(&d) == cudaSuccess ? d : kUnknownDevice;
}
// The errors after which the context is unusable for the rest of the process: every later
// CUDA call returns them again (the CUDA Runtime API's "sticky" errors).
inline bool cuda_error_is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress: case cudaErrorLaunchFailure: case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction: case cudaErrorMisalignedAddress: case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc: case cudaErrorAssert: case cudaErrorLaunchTimeout: case cudaErrorECCUncorrectable:
      return true;
    default: return false;
  }
}
// The runtime's words for a failure. A non-sticky error is cleared so later calls start clean;
// a sticky one marks the context broken, so the case worker is replaced after this case.
inline const char* cuda_failure_text(cudaError_t e) {
  if (cuda_error_is_sticky(e)) note_device_context_broken(std::string("CUDA ") + cudaGetErrorName(e));
  else (void)cudaGetLastError();
  return cudaGetErrorString(e);
}
}  // namespace tandem::check

#define CUDA_CHECK(expr)                                                                 \
  TANDEM_LIBRARY_CHECK("CUDA", #expr, expr, cudaSuccess,                                 \
                       ::tandem::check::current_cuda_device(),                           \
                       ::tandem::check::cuda_failure_text, -1)

// After a kernel launch: launch-configuration errors surface through cudaGetLastError.
// It may also return an earlier asynchronous launch's error, a sticky one among them.
#define CUDA_CHECK_LAUNCH()                                                              \
  TANDEM_LIBRARY_CHECK("CUDA", "kernel launch (cudaGetLastError)", cudaGetLastError(),   \
                       cudaSuccess, ::tandem::check::current_cuda_device(),              \
                       ::tandem::check::cuda_failure_text, -1)

#define CUBLAS_CHECK(expr)                                                               \
  TANDEM_LIBRARY_CHECK("cuBLAS", #expr, expr, CUBLAS_STATUS_SUCCESS,                     \
                       ::tandem::check::current_cuda_device(), cublasGetStatusString, -1)
