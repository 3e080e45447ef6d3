// fold_scattered_adds: add(dynamic_update_slice(zeros, g, starts), X) — how reverse mode sums
// the cotangent of a slice (written back into zeros of the whole operand's shape) into the
// cotangent of the operand — becomes dynamic_update_slice(X, dynamic_slice(X, starts) + g,
// starts): only the window is added, and neither the zeros nor a full-size add is built.
// A value cut into k slices (the LSTM's flat weight vector: one slice per matrix and bias)
// then costs k copies of the whole instead of k × (fill + copy + 3-stream add).
// Exact except for the sign of zero outside the window: X + 0 turns a −0 of X into +0, the
// rewrite keeps X's −0 (the two compare equal). Either operand order of the add; the zeros
// and the update must have no other reader. Not applied unless asked (the LSTM Program path
// asks, suites/common/lstm_program).
#pragma once
#include "engine/ir/ir.h"
#include "engine/passes/hoist_scan_reductions.h"  // HoistResult

namespace tandem {

// Rewrites every match at every level (sub-programs included); `rewrites` counts them.
HoistResult fold_scattered_adds(const Program& program);

}  // namespace tandem
