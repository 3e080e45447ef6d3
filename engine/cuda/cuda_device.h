// Backend-internal device helpers: make a device current (or say clearly why there is none)
// and the cached cuBLAS handle of each device. Included by engine/cuda/ sources only.
#pragma once
#include <cublas_v2.h>

namespace tandem {

// Makes cuda:index current. Without a driver or GPU this throws ErrorKind::unsupported
// ("... no CUDA device: <cudaGetErrorString>"); an index past the visible devices is bad input.
void use_cuda_device(int index);

// One handle per device, created on first use and kept for the life of the process (never
// destroyed: teardown order against the CUDA runtime at exit is not ours to control).
cublasHandle_t cublas_handle(int index);

}  // namespace tandem
