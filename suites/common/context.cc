// Run context: gathered once per process.
#include "suites/common/context.h"

#include <unistd.h>

#include <string>
#include <thread>

#include "engine/cuda/cuda_info.h"

#ifdef TANDEM_BLAS_OPENBLAS
extern "C" char* openblas_get_config(void);
extern "C" int openblas_get_num_threads(void);
#endif

namespace tandem {

nlohmann::json run_context() {
  static const nlohmann::json ctx = [] {
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    nlohmann::json c = {
        {"git_sha", TANDEM_GIT_SHA},
        {"compiler", std::string("g++ ") + __VERSION__},
        {"build_type", TANDEM_BUILD_TYPE},
        {"host", host},
        {"cpu_threads", std::thread::hardware_concurrency()},
        {"ranks", 1},
    };
#ifdef TANDEM_BLAS_OPENBLAS
    c["blas"] = std::string(openblas_get_config());  // "OpenBLAS 0.3.21 ... Zen"
    c["blas_threads"] = openblas_get_num_threads();
#else
    c["blas"] = TANDEM_BLAS_NAME;
#endif
    if (std::string(TANDEM_MPI_VERSION).size()) c["mpi"] = TANDEM_MPI_VERSION;
    if (std::string(TANDEM_NCCL_VERSION).size()) c["nccl"] = TANDEM_NCCL_VERSION;
    if (cuda_backend_built()) {
      c["cuda_runtime"] = cuda_runtime_version();
      c["cuda_driver"] = cuda_driver_version();
      c["cublas"] = cublas_version();
      c["cudnn"] = cudnn_version();
      int n = cuda_device_count();
      c["gpu_count"] = n;
      if (n > 0) c["gpu"] = cuda_device_name(0);
    }
    return c;
  }();
  return ctx;
}

}  // namespace tandem
