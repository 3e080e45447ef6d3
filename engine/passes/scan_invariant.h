// Loop-invariant residuals of a scan body (JAX's _scan_partial_eval hoists them out of the
// loop): a residual computed from the scan's consts only (a weight's transpose, say) has the
// same value at every step, so it is computed once outside the loop and read whole by the
// backward scan instead of being stacked [L, ...]. This finds such values and builds the
// sub-program computing them from the consts.
#pragma once
#include <vector>

#include "engine/passes/vjp.h"

namespace tandem {

// Per output of f: whether it depends on f's first `num_consts` inputs only (a literal, a
// const, an equation of such values; a collective is never taken out of its loop).
std::vector<bool> invariant_outputs(const Program& f, size_t num_consts);

struct InvariantSlice {
  Program program;             // (the consts it reads...) -> (the outputs asked for...)
  std::vector<size_t> consts;  // index of each input among f's consts
  RecomputeStats applications; // what running it once runs
};
// The equations of f computing its outputs `outs` (each invariant) from its consts.
InvariantSlice invariant_slice(const Program& f, size_t num_consts, const std::vector<size_t>& outs);

}  // namespace tandem
