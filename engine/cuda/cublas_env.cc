// The process's cuBLAS handles and their workspace configuration (see cublas_env.h).
#include "engine/cuda/cublas_env.h"

#include <cstdlib>

#include "engine/core/check_cuda.h"

namespace tandem {

bool default_cublas_workspace_config() {
  if (std::getenv("CUBLAS_WORKSPACE_CONFIG")) return false;
  return setenv("CUBLAS_WORKSPACE_CONFIG", kCublasWorkspaceConfig, /*overwrite=*/0) == 0;
}

cublasHandle_t create_cublas_handle() {
  default_cublas_workspace_config();  // before cublasCreate: cuBLAS reads it then
  cublasHandle_t h;
  CUBLAS_CHECK(cublasCreate(&h));
  return h;
}

}  // namespace tandem
