// Where a tensor lives: the host CPU or a CUDA device by ordinal.
#pragma once
#include <string>

namespace tandem {

enum class DeviceKind { cpu, cuda };

struct Device {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;
  static Device cpu() { return {}; }
  static Device cuda(int i = 0) { return {DeviceKind::cuda, i}; }
  bool operator==(const Device&) const = default;
  std::string str() const {
    return kind == DeviceKind::cpu ? "cpu" : "cuda:" + std::to_string(index);
  }
};

}  // namespace tandem
