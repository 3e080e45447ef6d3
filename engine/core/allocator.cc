// Allocator implementation: host memory is 64-byte aligned (BLAS and SIMD friendly). Every
// memory kind of the CPU, and a CUDA device's unpinned host kind, is such host memory; the
// CUDA backend registers its device pool and its pinned host pool (engine/cuda).
#include "engine/core/allocator.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "engine/core/error.h"

namespace tandem {
namespace {
std::tuple<int, int, int> key(Device d) { return {int(d.kind), d.index, int(d.memory)}; }
std::pair<int, int> ops_key(Device d) { return {int(d.kind), int(d.memory)}; }

DeviceMemoryOps host_ops() {
  return DeviceMemoryOps{
      [](size_t bytes, int) -> void* {
        size_t rounded = (bytes + 63) / 64 * 64;
        void* p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
        if (!p) throw std::bad_alloc();
        return p;
      },
      [](void* p, int) { std::free(p); }};
}
// Host tensors from the heap, kept by the process once freed, instead of glibc's default: a
// block above its dynamic mmap threshold (128 KiB to 32 MiB) is mapped fresh on every
// allocation and unmapped on free, so each call of a program on 0.5–4 MiB tensors
// page-faulted and zero-filled them again. That made vmapped and hand-batched MLPs at batch
// 256–1024 swing 0.6–1.5x against each other from run to run, and with the heap kept they
// agree to 0.97–1.01x (lab/pages/vmap.md, "The allocator, not the batching").
// TANDEM_HOST_HEAP=0 leaves glibc's defaults, for an A/B in one session.
void keep_host_memory_in_the_heap() {
  const char* e = std::getenv("TANDEM_HOST_HEAP");
  if (e && std::strcmp(e, "0") == 0) return;
  mallopt(M_MMAP_THRESHOLD, 256 << 20);  // the largest a single mmap-free block may be
  mallopt(M_TRIM_THRESHOLD, 512 << 20);  // free heap kept before it is returned to the OS
}
}  // namespace

// Never destroyed: a tensor a static holds (a registered case's imported inputs) is freed
// into it during exit, after a function-local static allocator would already be gone.
Allocator& Allocator::instance() {
  static Allocator* a = new Allocator;
  return *a;
}

Allocator::Allocator() {
  keep_host_memory_in_the_heap();
  for (MemoryKind m : {MemoryKind::device, MemoryKind::pinned_host, MemoryKind::unpinned_host})
    ops_[ops_key(Device::cpu().with_memory(m))] = host_ops();
  ops_[ops_key(Device::cuda().with_memory(MemoryKind::unpinned_host))] = host_ops();
  register_cuda_memory(*this);
}

void Allocator::register_device_ops(DeviceKind kind, DeviceMemoryOps ops, MemoryKind memory) {
  std::lock_guard<std::mutex> g(mu_);
  ops_[{int(kind), int(memory)}] = std::move(ops);
}

void* Allocator::allocate(Device d, size_t bytes) {
  DeviceMemoryOps ops;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = ops_.find(ops_key(d));
    if (it == ops_.end())
      throw_unsupported(cat("no memory backend for device ", d.str()),
                        "build with CUDA and run on a machine with a GPU");
    ops = it->second;
  }
  void* p = ops.alloc(bytes, d.index);
  std::lock_guard<std::mutex> g(mu_);
  MemoryStats& s = stats_[key(d)];
  s.live_bytes += int64_t(bytes);
  s.allocations += 1;
  if (s.live_bytes > s.peak_bytes) s.peak_bytes = s.live_bytes;
  return p;
}

void Allocator::deallocate(Device d, void* p, size_t bytes) {
  DeviceMemoryOps ops;
  {
    std::lock_guard<std::mutex> g(mu_);
    ops = ops_.at(ops_key(d));
    stats_[key(d)].live_bytes -= int64_t(bytes);
  }
  ops.free(p, d.index);
}

MemoryStats Allocator::stats(Device d) const {
  std::lock_guard<std::mutex> g(mu_);
  auto it = stats_.find(key(d));
  return it == stats_.end() ? MemoryStats{} : it->second;
}

void Allocator::reset_peak(Device d) {
  std::lock_guard<std::mutex> g(mu_);
  MemoryStats& s = stats_[key(d)];
  s.peak_bytes = s.live_bytes;
}

void Allocator::count_transfer(Device from, Device to, size_t bytes) {
  TANDEM_CHECK(from.same_device(to), "count_transfer: ", from.str(), " -> ", to.str(), " crosses devices");
  std::lock_guard<std::mutex> g(mu_);
  TransferStats& t = transfers_[{int(from.kind), from.index}];
  if (to.memory == MemoryKind::device) {
    t.to_device_bytes += int64_t(bytes);
    t.to_device_count += 1;
  } else {
    t.to_host_bytes += int64_t(bytes);
    t.to_host_count += 1;
  }
}

TransferStats Allocator::transfers(DeviceKind kind, int index) const {
  std::lock_guard<std::mutex> g(mu_);
  auto it = transfers_.find({int(kind), index});
  return it == transfers_.end() ? TransferStats{} : it->second;
}

void Allocator::reset_transfers(DeviceKind kind, int index) {
  std::lock_guard<std::mutex> g(mu_);
  transfers_[{int(kind), index}] = TransferStats{};
}

}  // namespace tandem
