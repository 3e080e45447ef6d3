// Pinned host pool and offload stream (see pinned_pool.h).
#include "engine/cuda/pinned_pool.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>

#include "engine/core/check_cuda.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_device.h"

namespace tandem {
namespace {

struct Block {
  void* p = nullptr;
  size_t bytes = 0;
  cudaEvent_t done = nullptr;  // recorded on the offload stream when the block was freed
  int index = 0;
};

// Never destroyed: buffers in static caches are freed during static destruction, in no
// order relative to these (as the device pool in cuda_memory.cc).
struct Pool {
  std::mutex mu;
  std::multimap<size_t, Block> cached;  // free blocks by size
  std::map<void*, Block> used;
  PinnedPoolStats stats;
};
Pool& pool() {
  static Pool& p = *new Pool;
  return p;
}

std::atomic<bool> g_offload_used{false};  // spares every device free the lock until then
std::mutex& reads_mutex() {
  static std::mutex& m = *new std::mutex;
  return m;
}
std::set<const void*>& reads() {
  static auto& s = *new std::set<const void*>;
  return s;
}

size_t rounded(size_t bytes) { return (bytes + 4095) / 4096 * 4096; }

void wait_and_forget(cudaEvent_t e) {
  if (!e) return;
  CUDA_CHECK(cudaEventSynchronize(e));
  CUDA_CHECK(cudaEventDestroy(e));
}

// Returns every cached block to the driver (when cudaHostAlloc runs out).
void trim(Pool& P) {
  std::multimap<size_t, Block> all;
  {
    std::lock_guard<std::mutex> g(P.mu);
    all.swap(P.cached);
  }
  for (auto& [size, b] : all) {
    wait_and_forget(b.done);
    CUDA_CHECK(cudaFreeHost(b.p));
    std::lock_guard<std::mutex> g(P.mu);
    P.stats.reserved_bytes -= int64_t(size);
  }
}

}  // namespace

void* pinned_pool_alloc(size_t bytes, int index) {
  use_cuda_device(index);
  if (bytes == 0) return nullptr;
  Pool& P = pool();
  const size_t want = rounded(bytes);
  Block b;
  {
    std::lock_guard<std::mutex> g(P.mu);
    auto it = P.cached.lower_bound(want);
    if (it != P.cached.end() && it->first <= 2 * want) {
      b = it->second;
      P.cached.erase(it);
    }
  }
  if (b.p) {
    wait_and_forget(b.done);  // the copies that used it before are over
    b.done = nullptr;
  } else {
    b.bytes = want;
    cudaError_t e = cudaHostAlloc(&b.p, want, cudaHostAllocPortable);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      trim(P);
      e = cudaHostAlloc(&b.p, want, cudaHostAllocPortable);
      if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        throw Error(ErrorKind::internal, cat("cuda:", index, ": out of pinned host memory allocating ", bytes, " bytes"),
                    "offload less (a policy that saves or recomputes more), or free host memory");
      }
    }
    CUDA_CHECK(e);
    std::lock_guard<std::mutex> g(P.mu);
    P.stats.reserved_bytes += int64_t(want);
    P.stats.reserved_high_bytes = std::max(P.stats.reserved_high_bytes, P.stats.reserved_bytes);
    P.stats.driver_allocations += 1;
  }
  b.index = index;
  std::lock_guard<std::mutex> g(P.mu);
  P.used[b.p] = b;
  return b.p;
}

// Runs in Buffer's destructor, so it reports instead of throwing.
void pinned_pool_free(void* p, int index) {
  if (!p) return;
  Pool& P = pool();
  Block b;
  {
    std::lock_guard<std::mutex> g(P.mu);
    auto it = P.used.find(p);
    if (it == P.used.end()) {
      std::fprintf(stderr, "tandem: pinned_pool_free of %p, which the pool did not hand out\n", p);
      return;
    }
    b = it->second;
    P.used.erase(it);
  }
  cudaError_t e = cudaSetDevice(index);
  if (e == cudaSuccess) e = cudaEventCreateWithFlags(&b.done, cudaEventDisableTiming);
  if (e == cudaSuccess) e = cudaEventRecord(b.done, offload_stream(index));
  if (e != cudaSuccess) {
    if (e != cudaErrorCudartUnloading)
      std::fprintf(stderr, "tandem: caching a pinned block on cuda:%d failed: %s\n", index, cudaGetErrorString(e));
    (void)cudaGetLastError();
    return;  // leaked rather than reused while a copy may still touch it
  }
  std::lock_guard<std::mutex> g(P.mu);
  P.cached.emplace(b.bytes, b);
}

PinnedPoolStats pinned_pool_stats() {
  Pool& P = pool();
  std::lock_guard<std::mutex> g(P.mu);
  return P.stats;
}

cudaStream_t offload_stream(int index) {
  static std::mutex& mu = *new std::mutex;
  static auto& streams = *new std::map<int, cudaStream_t>;
  std::lock_guard<std::mutex> g(mu);
  auto it = streams.find(index);
  if (it != streams.end()) return it->second;
  use_cuda_device(index);
  cudaStream_t s;
  // Non-blocking: the legacy default stream would otherwise serialize with it.
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  g_offload_used.store(true);
  return streams[index] = s;
}

void sync_offload_stream(int index) {
  if (!g_offload_used.load()) return;
  use_cuda_device(index);
  CUDA_CHECK(cudaStreamSynchronize(offload_stream(index)));
}

void read_by_offload(const void* device_ptr) {
  std::lock_guard<std::mutex> g(reads_mutex());
  reads().insert(device_ptr);
}

bool free_after_offload(void* p, int index) {
  if (!g_offload_used.load()) return false;
  {
    std::lock_guard<std::mutex> g(reads_mutex());
    if (reads().erase(p) == 0) return false;
  }
  cudaStream_t s = offload_stream(index);
  cudaEvent_t queued;
  cudaError_t e = cudaEventCreateWithFlags(&queued, cudaEventDisableTiming);
  if (e == cudaSuccess) e = cudaEventRecord(queued, 0);  // the default stream's uses of p
  if (e == cudaSuccess) e = cudaStreamWaitEvent(s, queued, 0);
  if (e == cudaSuccess) e = cudaEventDestroy(queued);
  if (e == cudaSuccess) e = cudaFreeAsync(p, s);
  if (e != cudaSuccess && e != cudaErrorCudartUnloading) {
    (void)cudaGetLastError();
    std::fprintf(stderr, "tandem: freeing an offloaded device buffer on cuda:%d failed: %s\n", index,
                 cudaGetErrorString(e));
  }
  return true;
}

}  // namespace tandem
