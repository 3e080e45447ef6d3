// The replay of a scan under remat (inside a checkpoint, or under a top-level policy other than everything_saveable;
// JAX's scan rule for partial_eval_jaxpr_custom): there the forward scan stacks only what the policy saves, never the
// carry entering each step; the backward re-runs the forward recurrence from the scan's operands and those stacked
// values, and the backward scan reads the carries that replay stacks, the enclosing level the primal outputs (final
// carries, ys) it rebuilds. This builds the replay's step: the body's carry outputs and the ys asked for from its
// primal inputs and its residuals, recomputing only what the policy did not save (the body's linearization made every
// saveable value on the rebuilt outputs' path a residual), so a saved dot is read, never re-run.
#pragma once
#include <vector>

#include "engine/passes/vjp.h"

namespace tandem {

struct CarryReplay {
  // (kept inputs...) -> (carry outputs..., the ys asked for..., the residuals produced...); the kept inputs are, in
  // order, those of (body inputs..., body residuals...) these outputs depend on.
  Program program;
  std::vector<size_t> inputs;  // index of each kept input in (body inputs..., residuals...)
  RecomputeStats recompute;    // the applications one step of the replay re-runs
};

// body: the scan body's linearization (forward = (outputs..., residuals...)); its first `num_carry` outputs are the
// carries; ys: the index (among the ys) of each y to rebuild too; produce: the residuals the replay computes and emits
// after them (those the body's backward reads and the forward did not save: the replay stacks them once, so the
// backward scan recomputes nothing, as JAX's transposed remat runs the primal scan once). Every other residual is an
// input.
CarryReplay carry_replay(const VjpProgram& body, size_t num_carry, const std::vector<size_t>& ys = {},
                         const std::vector<size_t>& produce = {});

}  // namespace tandem
