// Allocator: the one path by which the engine takes memory. It counts live and peak bytes
// per device and memory kind (a device's own memory apart from the host memory holding
// values offloaded from it), because peak memory is a measured result (remat, scan
// hoisting). It also counts the bytes moved between a device and its host memory kinds by
// device_put (engine/prims/device_put.h): what a remat policy offloaded, measured.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>

#include "engine/core/device.h"

namespace tandem {

struct MemoryStats {
  int64_t live_bytes = 0;
  int64_t peak_bytes = 0;
  int64_t allocations = 0;
};

// Bytes device_put moved between a device's memory and its host memory kinds.
struct TransferStats {
  int64_t to_host_bytes = 0, to_host_count = 0;      // device -> pinned/unpinned host
  int64_t to_device_bytes = 0, to_device_count = 0;  // host kinds -> device
};

// Raw memory for one device kind and memory kind; the CUDA backend registers its own.
struct DeviceMemoryOps {
  std::function<void*(size_t bytes, int index)> alloc;
  std::function<void(void* p, int index)> free;
};

class Allocator {
 public:
  static Allocator& instance();

  void* allocate(Device d, size_t bytes);
  void deallocate(Device d, void* p, size_t bytes);

  // Counters of d's memory kind only: Device::cpu() excludes the pinned_host pool.
  MemoryStats stats(Device d) const;
  // Starts a new measurement window: peak := live.
  void reset_peak(Device d);
  void register_device_ops(DeviceKind kind, DeviceMemoryOps ops, MemoryKind memory = MemoryKind::device);

  // Called by device_put's impls for every copy between memory kinds of one device.
  void count_transfer(Device from, Device to, size_t bytes);
  TransferStats transfers(DeviceKind kind, int index = 0) const;
  void reset_transfers(DeviceKind kind, int index = 0);

 private:
  Allocator();
  mutable std::mutex mu_;
  std::map<std::tuple<int, int, int>, MemoryStats> stats_;
  std::map<std::pair<int, int>, DeviceMemoryOps> ops_;  // (device kind, memory kind)
  std::map<std::pair<int, int>, TransferStats> transfers_;
};

// Registers device memory and host<->device copies for the CUDA backend; defined by
// engine/cuda (or as a no-op by no_cuda.cc). The Allocator calls it once when it is created,
// so a tensor can live on a GPU before any primitive has been looked up.
void register_cuda_memory(Allocator& a);

}  // namespace tandem
