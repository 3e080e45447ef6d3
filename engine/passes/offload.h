// Offload placement: the residual boundary of a vjp made real for what the policy offloads
// (Residual::offloaded). As XLA does with memory-kind annotations, the transfers are
// explicit equations of the two programs:
//   forward : device_put(r, pinned_host) right after r's producer; the forward returns the
//             host copy, so r's device buffer is freed after its last forward use;
//   backward: device_put(r, device) just before the first equation that reads r.
// Applied once, by vjp() on the finished top level (checkpoint and scan levels only flag
// their residuals; the level that finally saves them moves them).
#pragma once
#include "engine/passes/vjp.h"

namespace tandem {

void place_offloads(VjpProgram& v);

}  // namespace tandem
