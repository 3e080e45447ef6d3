// The CUDA backend's entry point: device memory through the Allocator (so live/peak bytes
// count GPU buffers too), host<->device copies, and the CUDA impls of the primitives.
// Without a driver or GPU every path throws ErrorKind::unsupported, never crashes.
#include <cstdio>
#include <cstring>

#include "engine/core/tensor.h"
#include "engine/core/check_cuda.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/cuda_info.h"
#include "engine/cuda/dot_cuda.h"
#include "engine/cuda/lstm_cudnn.h"
#include "engine/ir/primitive.h"
#include "engine/prims/register_all.h"

namespace tandem {
namespace {

void* cuda_alloc(size_t bytes, int index) {
  use_cuda_device(index);
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    throw Error(ErrorKind::internal,
                cat("cuda:", index, ": out of device memory allocating ", bytes, " bytes"),
                "use a smaller case, or check Allocator stats for leaked buffers");
  }
  CUDA_CHECK(e);
  return p;
}

// Runs in Buffer's destructor, so it reports instead of throwing.
void cuda_free(void* p, int index) {
  if (!p) return;
  cudaError_t e = cudaSetDevice(index);
  if (e == cudaSuccess) e = cudaFree(p);
  if (e != cudaSuccess && e != cudaErrorCudartUnloading) {
    (void)cudaGetLastError();
    std::fprintf(stderr, "tandem: cudaFree on cuda:%d failed: %s\n", index, cudaGetErrorString(e));
  }
}

void copy_between(void* dst, Device dd, const void* src, Device sd, size_t bytes) {
  if (bytes == 0) return;
  bool to_gpu = dd.kind == DeviceKind::cuda, from_gpu = sd.kind == DeviceKind::cuda;
  if (to_gpu && from_gpu) {
    if (dd.index == sd.index) {
      use_cuda_device(dd.index);
      CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    } else {
      use_cuda_device(sd.index);
      use_cuda_device(dd.index);
      CUDA_CHECK(cudaMemcpyPeer(dst, dd.index, src, sd.index, bytes));
    }
  } else if (to_gpu) {
    use_cuda_device(dd.index);
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  } else if (from_gpu) {
    use_cuda_device(sd.index);
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  } else {
    std::memcpy(dst, src, bytes);
  }
}

}  // namespace

bool cuda_backend_built() { return true; }

void register_cuda_memory(Allocator& a) {
  a.register_device_ops(DeviceKind::cuda, DeviceMemoryOps{cuda_alloc, cuda_free});
  register_device_copy(copy_between);
}

void register_cuda_impls() {
  // Called by register_all_primitives() after every family is registered.
  mutable_primitive("dot_general").cuda = cuda_impl::dot_general_impl;
  register_lstm_cudnn_impls();
}

}  // namespace tandem
