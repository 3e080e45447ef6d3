// Device memory for the Allocator: a stream-ordered caching allocator over each device's
// default memory pool (cudaMallocAsync / cudaFreeAsync on the default stream, the stream
// every tandem kernel, cuBLAS and cuDNN call runs on). The pool's release threshold is set
// to "never", so a freed block stays reserved and the next allocation of the same size is
// served from the pool without a cudaMalloc or a device synchronization: after a warm-up run
// a timed region allocates nothing from the driver. The Allocator still counts every
// requested byte (live and peak per device) exactly as on the CPU.
//
// Counters for tests of the timing rules: how many host<->device copies the backend made,
// and the pool's reserved bytes (grows only when the driver is asked for memory).
#pragma once
#include <cstddef>
#include <cstdint>

#include "engine/core/tensor.h"

namespace tandem {

void* cuda_pool_alloc(size_t bytes, int index);
void cuda_pool_free(void* p, int index);

struct CudaPoolStats {
  int64_t reserved_bytes = 0;       // held by the pool now
  int64_t reserved_high_bytes = 0;  // most it ever held
};
CudaPoolStats cuda_pool_stats(int index);

// Host->device and device->host copies made through Tensor::to since the process started.
int64_t cuda_host_transfer_count();
void count_cuda_host_transfer();

// A host copy of a small device tensor that an impl must read on the host (cuDNN takes the
// LSTM's sequence lengths both on the device and, in its data descriptor, on the host).
// Downloaded once per device buffer and kept until cuda_pool_free frees that buffer:
// tensors are immutable once produced, so while the buffer lives its contents cannot
// change, and a freed address that is handed out again starts with no copy. A timed run on
// inputs that were already read once (the warm-up run) therefore copies nothing.
Tensor cuda_host_mirror(const Tensor& device_tensor);

}  // namespace tandem
