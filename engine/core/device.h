// Where a tensor lives: the host CPU or a CUDA device by ordinal, and in which of that
// device's memory kinds (JAX's memory kinds: "device", "pinned_host", "unpinned_host").
// Programs run on a device's own memory; the host kinds hold values offloaded from it (a
// remat policy's offloaded residuals), counted apart by the Allocator so a device's peak
// bytes exclude them. On the CPU backend all three are host memory, accounted separately.
#pragma once
#include <string>

namespace tandem {

enum class DeviceKind { cpu, cuda };
enum class MemoryKind { device, pinned_host, unpinned_host };

struct Device {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;
  MemoryKind memory = MemoryKind::device;
  static Device cpu() { return {}; }
  static Device cuda(int i = 0) { return {DeviceKind::cuda, i}; }
  bool operator==(const Device&) const = default;
  // The same device in another of its memory kinds.
  Device with_memory(MemoryKind m) const { return {kind, index, m}; }
  // The same physical device (any memory kind).
  bool same_device(const Device& o) const { return kind == o.kind && index == o.index; }
  // Memory a GPU kernel reads natively (a CUDA device's own memory).
  bool on_gpu() const { return kind == DeviceKind::cuda && memory == MemoryKind::device; }
  std::string str() const;
};

const char* memory_kind_name(MemoryKind m);
// "device" | "pinned_host" | "unpinned_host"; anything else is a bad-input error.
MemoryKind memory_kind_from_string(const std::string& s);

}  // namespace tandem
