// Whether a backend's device can run here, as a skip reason: the one question the case
// harness (harness/harness.cc) and the engine-vs-reference rows (prims_vs_reference_test.cc)
// ask before running anything on a backend, so both skip with the same words.
#pragma once
#include <string>

#include "engine/core/device.h"

namespace tandem {

// Skip reason when the device is not usable here (no GPU, CUDA not built), else "".
std::string device_unavailable_reason(Device d);

}  // namespace tandem
