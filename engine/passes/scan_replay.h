// The carry replay of a scan inside a checkpoint (JAX's scan rule for partial_eval_jaxpr_custom):
// there the forward scan does not stack the carry entering each step; the backward re-runs the
// forward recurrence from the scan's operands and the per-step values the policy saved, and
// the backward scan reads the carries that replay stacks. This builds the replay's step: the
// body's carry outputs from its primal inputs and its residuals, recomputing only what the
// policy did not save (the body's linearization made every saveable value on the carries' path
// a residual).
#pragma once
#include <vector>

#include "engine/passes/vjp.h"

namespace tandem {

struct CarryReplay {
  // (kept inputs...) -> (carry outputs...); the kept inputs are, in order, those of
  // (body inputs..., body residuals...) the carry outputs depend on.
  Program program;
  std::vector<size_t> inputs;  // index of each kept input in (body inputs..., residuals...)
  RecomputeStats recompute;    // the applications one step of the replay re-runs
};

// body: the scan body's linearization (forward = (outputs..., residuals...)); its first
// `num_carry` outputs are the carries.
CarryReplay carry_replay(const VjpProgram& body, size_t num_carry);

}  // namespace tandem
