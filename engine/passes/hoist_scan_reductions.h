// hoist_scan_reductions: an opt-in Program → Program pass (the seed's "push up reductions",
// extended to whole MSE losses). When a scan's stacked output ys is consumed only by
// reduce_sum — directly, or through an elementwise chain that can run per step (subtracting
// targets stacked along the scan axis, integer_pow, multiplying by a scalar, …) — the chain
// and the per-step part of the reduction move into the scan body, which then stacks only the
// reduced values (length L) or accumulates them in a carry; the reduction is finished outside.
// The result is mathematically equal but reassociates sums, so it is never applied unless
// asked. A scan that cannot be rewritten is left as is and the log says why.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/ir.h"
#include "engine/passes/pass_log.h"

namespace tandem {

struct HoistOptions {
  // Sum the per-step partials in a carry (O(partial) memory) instead of stacking L of them.
  // Applies to reductions that include the scan axis; the others still stack.
  bool accumulate_in_carry = false;
  // Wider accumulation, e.g. f64 for an f32 loss: the per-step terms are converted before
  // they are reduced, partials are stacked or carried in this dtype, and the finished
  // reduction is converted back. Ignored for integer values.
  std::optional<DType> accumulate_dtype{};
  // Also rewrite scans inside sub-programs (nested scans), after the enclosing level.
  bool recurse = true;
  // The cost estimate. A rewrite moves the chain's eqns into the body, where each runs once
  // per step instead of once over [L, ...]: it saves the [L, ...] intermediates' memory
  // traffic and costs L times the executor's per-eqn overhead (≈ 0.3–0.6 µs of CPU,
  // lab/bench/executor_overhead). Measured on the suite's cases (lab/README.md, "When the
  // pass declines"): up to E = 1,024 elements per step the hoisted program is slower
  // (0.35–0.62× at E ≤ 231, 0.8–1.07× at E = 1,024); from E = 4,096 it is faster (3.3× at
  // L = 200; 1.04–4.6× at E ≥ 65,536). A ys with fewer elements per step than this is
  // declined with that reason. 0 rewrites whatever is legal (memory first, or tests of the
  // rewrite itself).
  int64_t min_step_elements = 4096;
};

// Decline tags (PassNote::reason).
inline constexpr const char* kDeclineNonReducible = "non-reducible consumer";
inline constexpr const char* kDeclineUsedTwice = "ys used twice";
inline constexpr const char* kDeclineAxes = "axes do not allow it";
inline constexpr const char* kDeclineOperand = "operand not splittable per step";
inline constexpr const char* kDeclineTooSmall = "per-step work too small to pay for the rewrite";

struct HoistResult {
  Program program;
  std::vector<std::string> log;  // notes as text, in the order they were made
  int rewrites = 0;              // ys outputs rewritten, over every nesting level
  std::vector<PassNote> notes;
};

HoistResult hoist_scan_reductions(const Program& program, const HoistOptions& options = {});

}  // namespace tandem
