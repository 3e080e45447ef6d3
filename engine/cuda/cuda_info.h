// What the CUDA side of this build and machine is: device count and names, and library
// versions for the records. Defined by the CUDA backend, or by no_cuda.cc (0 / "").
#pragma once
#include <string>

namespace tandem {
bool cuda_backend_built();
int cuda_device_count();                 // 0 when no driver or GPU; never throws
std::string cuda_device_name(int index);
std::string cuda_runtime_version();      // e.g. "13.0"
std::string cuda_driver_version();
std::string cublas_version();
std::string cudnn_version();
void cuda_synchronize(int index);      // waits for the device; a no-op without CUDA
}  // namespace tandem
