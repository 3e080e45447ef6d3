// Device names and memory-kind parsing (device.h).
#include "engine/core/device.h"

#include "engine/core/error.h"

namespace tandem {

const char* memory_kind_name(MemoryKind m) {
  switch (m) {
    case MemoryKind::device: return "device";
    case MemoryKind::pinned_host: return "pinned_host";
    case MemoryKind::unpinned_host: return "unpinned_host";
  }
  return "?";
}

MemoryKind memory_kind_from_string(const std::string& s) {
  for (MemoryKind m : {MemoryKind::device, MemoryKind::pinned_host, MemoryKind::unpinned_host})
    if (s == memory_kind_name(m)) return m;
  throw_bad_input(cat("memory kind '", s, "' is unknown"), "use device, pinned_host or unpinned_host");
}

std::string Device::str() const {
  std::string s = kind == DeviceKind::cpu ? "cpu" : "cuda:" + std::to_string(index);
  return memory == MemoryKind::device ? s : s + ":" + memory_kind_name(memory);
}

}  // namespace tandem
