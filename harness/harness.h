// Runs one case on one device: correctness before timing, always. Unsupported → skip with
// the reason; a failed check is not timed; an exception becomes an "error" verdict with its
// message, so one broken case never stops the others.
#pragma once
#include "bridge/device_usable.h"  // device_unavailable_reason: run_case skips with it
#include "harness/case.h"

namespace tandem {

CaseResult run_case(const Case& c, const RunOptions& opts);

}  // namespace tandem
