// The CUDA backend's entry point: device memory through the Allocator (so live/peak bytes count GPU buffers too; the
// memory itself comes from the stream-ordered pool of cuda_memory.cc), host<->device copies, and the CUDA impls of the
// primitives. Without a driver or GPU every path throws ErrorKind::unsupported, never crashes.
#include <cstring>

#include "engine/core/tensor.h"
#include "engine/core/check_cuda.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/cuda_info.h"
#include "engine/cuda/cuda_memory.h"
#include "engine/cuda/device_faults.h"
#include "engine/cuda/cuda_prims.h"
#include "engine/cuda/cuda_timing.h"
#include "engine/cuda/dot_cuda.h"
#include "engine/cuda/lstm_cudnn.h"
#include "engine/cuda/pinned_pool.h"
#include "engine/ir/primitive.h"
#include "engine/prims/register_all.h"

namespace tandem {
namespace {

void copy_between(void* dst, Device dd, const void* src, Device sd, size_t bytes) {
  if (bytes == 0) return;
  bool to_gpu = dd.on_gpu(), from_gpu = sd.on_gpu();
  // A device's pinned host buffer may still be the target or source of an offload copy.
  for (const Device& h : {dd, sd})
    if (h.kind == DeviceKind::cuda && h.memory == MemoryKind::pinned_host) sync_offload_stream(h.index);
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
    count_cuda_host_transfer();
    use_cuda_device(dd.index);
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  } else if (from_gpu) {
    count_cuda_host_transfer();
    use_cuda_device(sd.index);
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
    check_device_faults(sd.index);  // the copy waited for the device: report its faults
  } else {
    std::memcpy(dst, src, bytes);
  }
}

}  // namespace

bool cuda_backend_built() { return true; }

void register_cuda_memory(Allocator& a) {
  a.register_device_ops(DeviceKind::cuda, DeviceMemoryOps{cuda_pool_alloc, cuda_pool_free});
  a.register_device_ops(DeviceKind::cuda, DeviceMemoryOps{pinned_pool_alloc, pinned_pool_free},
                        MemoryKind::pinned_host);
  register_device_copy(copy_between);
}

void register_cuda_impls() {
  // Called by register_all_primitives() after every family is registered.
  mutable_primitive("dot_general").cuda = cuda_impl::dot_general_impl;
  register_lstm_cudnn_impls();
  register_elementwise_cuda_impls();
  register_structure_cuda_impls();
  register_reduction_cuda_impls();
  register_pad_rev_cumsum_cuda_impls();
  register_control_cuda_impls();
  register_offload_cuda_impls();
  register_conv_cuda_impls();
  register_gather_sort_cuda_impls();
  register_window_cuda_impls();
  register_cuda_eqn_clock();
}

}  // namespace tandem
