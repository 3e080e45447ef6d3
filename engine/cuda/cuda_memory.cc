// Stream-ordered caching allocator over the CUDA memory pools (see cuda_memory.h).
#include "engine/cuda/cuda_memory.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>

#include "engine/core/error.h"
#include "engine/core/check_cuda.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/pinned_pool.h"

namespace tandem {
namespace {

std::atomic<int64_t> g_host_transfers{0};

// cuda_host_mirror's copies by device address; `g_mirrors_used` spares every free the lock
// while no impl has asked for a mirror. Never destroyed (see pool_ready).
std::atomic<bool> g_mirrors_used{false};
std::mutex& mirror_mutex() {
  static std::mutex& mu = *new std::mutex;
  return mu;
}
std::map<const void*, Tensor>& mirrors() {
  static auto& m = *new std::map<const void*, Tensor>;
  return m;
}

// Whether cuda:index has memory pools (every driver since CUDA 11.2 on a supported GPU); the first call configures its
// default pool to keep freed memory reserved. Never destroyed: buffers held in static caches (the executor's uploaded
// literals) are freed during static destruction, in no order relative to these.
bool pool_ready(int index) {
  static std::mutex& mu = *new std::mutex;
  static std::map<int, bool>& ready = *new std::map<int, bool>;
  std::lock_guard<std::mutex> g(mu);
  auto it = ready.find(index);
  if (it != ready.end()) return it->second;
  int supported = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, index));
  if (supported) {
    cudaMemPool_t pool;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, index));
    uint64_t keep_everything = UINT64_MAX;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
  }
  ready[index] = supported != 0;
  return supported != 0;
}

[[noreturn]] void out_of_memory(size_t bytes, int index) {
  throw Error(ErrorKind::internal, cat("cuda:", index, ": out of device memory allocating ", bytes, " bytes"),
              "use a smaller case, or check Allocator stats for leaked buffers");
}

}  // namespace

void* cuda_pool_alloc(size_t bytes, int index) {
  use_cuda_device(index);
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  if (!pool_ready(index)) {  // no pools: plain cudaMalloc
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      out_of_memory(bytes, index);
    }
    CUDA_CHECK(e);
    return p;
  }
  cudaError_t e = cudaMallocAsync(&p, bytes, 0);
  if (e == cudaErrorMemoryAllocation) {
    // The pool may hold enough free memory in blocks of other sizes: hand it back to the
    // device once pending frees have completed, then try again.
    (void)cudaGetLastError();
    cudaMemPool_t pool;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, index));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
    e = cudaMallocAsync(&p, bytes, 0);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      out_of_memory(bytes, index);
    }
  }
  CUDA_CHECK(e);
  return p;
}

// Runs in Buffer's destructor, so it reports instead of throwing. The free is ordered after
// all work already queued on the default stream, so a kernel still reading the buffer is safe.
void cuda_pool_free(void* p, int index) {
  if (!p) return;
  if (g_mirrors_used.load()) {
    std::lock_guard<std::mutex> g(mirror_mutex());
    mirrors().erase(p);
  }
  cudaError_t e = cudaSetDevice(index);
  if (e == cudaSuccess && pool_ready(index) && free_after_offload(p, index)) return;  // read by a copy in flight
  if (e == cudaSuccess) e = pool_ready(index) ? cudaFreeAsync(p, 0) : cudaFree(p);
  if (e != cudaSuccess && e != cudaErrorCudartUnloading) {
    (void)cudaGetLastError();
    std::fprintf(stderr, "tandem: freeing device memory on cuda:%d failed: %s\n", index, cudaGetErrorString(e));
  }
}

CudaPoolStats cuda_pool_stats(int index) {
  CudaPoolStats s;
  use_cuda_device(index);
  if (!pool_ready(index)) return s;
  cudaMemPool_t pool;
  CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, index));
  uint64_t v = 0;
  CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &v));
  s.reserved_bytes = int64_t(v);
  CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &v));
  s.reserved_high_bytes = int64_t(v);
  return s;
}

Tensor cuda_host_mirror(const Tensor& t) {
  if (t.device().kind != DeviceKind::cuda) return t;
  std::lock_guard<std::mutex> g(mirror_mutex());
  g_mirrors_used.store(true);
  Tensor& m = mirrors()[t.raw()];
  if (!m.defined() || m.type() != t.type()) m = t.to(Device::cpu());  // a view may retype it
  return m;
}

int64_t cuda_host_transfer_count() { return g_host_transfers.load(); }
void count_cuda_host_transfer() { g_host_transfers.fetch_add(1); }

}  // namespace tandem
