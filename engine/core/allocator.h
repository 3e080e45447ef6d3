// Allocator: the one path by which the engine takes memory. It counts live and peak bytes
// per device, because peak memory is a measured result (remat, scan hoisting).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

#include "engine/core/device.h"

namespace tandem {

struct MemoryStats {
  int64_t live_bytes = 0;
  int64_t peak_bytes = 0;
  int64_t allocations = 0;
};

// Raw memory for one device kind; the CUDA backend registers its own.
struct DeviceMemoryOps {
  std::function<void*(size_t bytes, int index)> alloc;
  std::function<void(void* p, int index)> free;
};

class Allocator {
 public:
  static Allocator& instance();

  void* allocate(Device d, size_t bytes);
  void deallocate(Device d, void* p, size_t bytes);

  MemoryStats stats(Device d) const;
  // Starts a new measurement window: peak := live.
  void reset_peak(Device d);
  void register_device_ops(DeviceKind kind, DeviceMemoryOps ops);

 private:
  Allocator();
  mutable std::mutex mu_;
  std::map<std::pair<int, int>, MemoryStats> stats_;
  std::map<int, DeviceMemoryOps> ops_;
};

// Registers device memory and host<->device copies for the CUDA backend; defined by
// engine/cuda (or as a no-op by no_cuda.cc). The Allocator calls it once when it is created,
// so a tensor can live on a GPU before any primitive has been looked up.
void register_cuda_memory(Allocator& a);

}  // namespace tandem
