// Allocator implementation: host memory is 64-byte aligned (BLAS and SIMD friendly).
#include "engine/core/allocator.h"

#include <cstdlib>
#include <new>

#include "engine/core/error.h"

namespace tandem {
namespace {
std::pair<int, int> key(Device d) { return {int(d.kind), d.index}; }
}  // namespace

Allocator& Allocator::instance() {
  static Allocator a;
  return a;
}

Allocator::Allocator() {
  ops_[int(DeviceKind::cpu)] = DeviceMemoryOps{
      [](size_t bytes, int) -> void* {
        size_t rounded = (bytes + 63) / 64 * 64;
        void* p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
        if (!p) throw std::bad_alloc();
        return p;
      },
      [](void* p, int) { std::free(p); }};
  register_cuda_memory(*this);
}

void Allocator::register_device_ops(DeviceKind kind, DeviceMemoryOps ops) {
  std::lock_guard<std::mutex> g(mu_);
  ops_[int(kind)] = std::move(ops);
}

void* Allocator::allocate(Device d, size_t bytes) {
  DeviceMemoryOps ops;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = ops_.find(int(d.kind));
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
    ops = ops_.at(int(d.kind));
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

}  // namespace tandem
