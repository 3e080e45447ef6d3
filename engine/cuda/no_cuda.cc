// Built when the CUDA toolkit is absent: the CUDA backend adds no impls, so every CUDA case
// reports "unsupported", and the info functions report no device and no versions.
#include "engine/core/allocator.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_info.h"
#include "engine/cuda/cuda_memory.h"
#include "engine/cuda/cuda_timing.h"
#include "engine/prims/register_all.h"

namespace tandem {
void register_cuda_impls() {}
void register_cuda_memory(Allocator&) {}
bool cuda_backend_built() { return false; }
int cuda_device_count() { return 0; }
std::string cuda_unavailable_reason(int) {
  return "this tandem was built without the CUDA backend (configure found no nvcc, or TANDEM_WITH_CUDA=OFF)";
}
std::string cuda_device_name(int) { return ""; }
std::string cuda_runtime_version() { return ""; }
std::string cuda_driver_version() { return ""; }
std::string cublas_version() { return ""; }
std::string cudnn_version() { return ""; }
void cuda_synchronize(int) {}
CudaPoolStats cuda_pool_stats(int) { return {}; }
int64_t cuda_host_transfer_count() { return 0; }
double cuda_event_seconds(int, const std::function<void()>&) {
  throw_unsupported("CUDA timing without the CUDA backend", "configure with the CUDA toolkit");
}
}  // namespace tandem
