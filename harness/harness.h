// Runs one case on one device: correctness before timing, always. Unsupported → skip with
// the reason; a failed check is not timed; an exception becomes an "error" verdict with its
// message, so one broken case never stops the others.
#pragma once
#include "suites/common/case.h"

namespace tandem {

CaseResult run_case(const Case& c, const RunOptions& opts);

// Skip reason when the device is not usable here (no GPU, CUDA not built), else "".
std::string device_unavailable_reason(Device d);

}  // namespace tandem
