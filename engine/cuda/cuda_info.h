// What the CUDA side of this build and machine is: device count and names, and library
// versions for the records. Defined by the CUDA backend, or by no_cuda.cc (0 / "").
#pragma once
#include <string>

namespace tandem {
bool cuda_backend_built();
int cuda_device_count();                 // 0 when no driver or GPU; never throws
// Why cuda:index cannot be used by this build on this machine (no CUDA backend built, no
// device, a driver older than the runtime, an index past the count), or "" when it can.
std::string cuda_unavailable_reason(int index);
std::string cuda_device_name(int index);
std::string cuda_runtime_version();      // e.g. "13.0"
std::string cuda_driver_version();
std::string cublas_version();
std::string cudnn_version();
void cuda_synchronize(int index);      // waits for the device; a no-op without CUDA
}  // namespace tandem
