// CHECK macros for CUDA runtime and cuBLAS calls inside the CUDA backend: a failure throws
// tandem::Error (internal) naming the expression, file:line, host (and rank under a launcher)
// and the library's own error string. "No GPU" is not reported here: use_cuda_device()
// (cuda_device.h) turns that into an "unsupported" error before any other call is made.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "engine/core/error.h"

namespace tandem::cuda_detail {

inline std::string where_host() {
  char name[256] = {0};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown host";
  std::string s = name;
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* r = std::getenv(var)) return s + " rank " + r;
  return s;
}

[[noreturn]] inline void throw_check_failure(const char* lib, const char* expr, const char* file,
                                             int line, const std::string& what) {
  throw Error(ErrorKind::internal,
              cat(lib, " call failed: ", expr, " at ", file, ":", line, " on ", where_host(),
                  ": ", what));
}

}  // namespace tandem::cuda_detail

#define CUDA_CHECK(expr)                                                                   \
  do {                                                                                     \
    cudaError_t tandem_err_ = (expr);                                                      \
    if (tandem_err_ != cudaSuccess) {                                                      \
      (void)cudaGetLastError(); /* clear a non-sticky error so later calls start clean */  \
      ::tandem::cuda_detail::throw_check_failure("CUDA", #expr, __FILE__, __LINE__,        \
                                                 cudaGetErrorString(tandem_err_));         \
    }                                                                                      \
  } while (0)

#define CUBLAS_CHECK(expr)                                                                 \
  do {                                                                                     \
    cublasStatus_t tandem_st_ = (expr);                                                    \
    if (tandem_st_ != CUBLAS_STATUS_SUCCESS)                                               \
      ::tandem::cuda_detail::throw_check_failure("cuBLAS", #expr, __FILE__, __LINE__,      \
                                                 cublasGetStatusString(tandem_st_));       \
  } while (0)

// After a kernel launch: launch-configuration errors surface through cudaGetLastError.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
