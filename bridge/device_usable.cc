// device_unavailable_reason (see device_usable.h).
#include "bridge/device_usable.h"

#include "engine/cuda/cuda_info.h"

namespace tandem {

std::string device_unavailable_reason(Device d) {
  if (d.kind == DeviceKind::cpu) return "";
  if (!cuda_backend_built()) return "CUDA backend not built (configure found no CUDA toolkit)";
  if (cuda_device_count() <= d.index) return "no CUDA device visible";
  return "";
}

}  // namespace tandem
