// hoist_scan_accumulations: the transpose of hoist_scan_reductions. When a scan carries an accumulator that each step
// only updates as c ← c + dot_general(x_t, y_t) — c read nowhere else in the body, the dot read nowhere else, x_t and
// y_t per-step values (an xs row, a carry entering the step, or a value the body computes) — the accumulation moves
// out: the body emits x_t and y_t as stacked outputs (an xs operand is used as it is, not stacked again), the carry is
// dropped, and after the scan one dot_general contracting over (L, the per-step contracting dims) plus the initial
// carry gives the final value:
//   c_L = c_0 + Σ_t dot(x_t, y_t) = c_0 + dot(X, Y) over (L, K).
// This is what the reverse-mode of a scan produces for a weight used by every step (the weight gradient Σ_t
// h_{t-1}ᵀ·dgates_t of an RNN): L thin GEMMs [M,K]·[K,N] with K the batch, each followed by an add over [M,N], become
// one GEMM with K·L rows, as the fused LSTM kernel and cuDNN compute dW after the loop. Exact up to floating-point
// summation order: the terms summed are the same products; only the order of the additions changes ((c_0 + d_0) + d_1 +
// … per step, against BLAS's order over all L·K terms, then + c_0), so each element differs by at most the usual bound
// for a reordered sum, 2·γ_{L·K+1}·(|c_0| + Σ |x||y|) with γ_n = n·u / (1 − n·u). A carry that cannot be rewritten is
// left as is and the log says why.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/ir/ir.h"
#include "engine/passes/hoist_scan_reductions.h"  // HoistResult, PassNote
#include "engine/passes/vjp.h"

namespace tandem {

struct AccumulationHoistOptions {
  // The cost estimate, in elements moved per step (the flops are the same before and after). Before: the step's dot
  // writes M·N and the add reads 2·M·N and writes M·N (4·M·N, plus two eqns of executor overhead, ≈ 0.5 µs each).
  // After: each operand the body must stack (not already an xs) is written once per step and read once by the final
  // GEMM (2·S). The rewrite pays when 2·S < 4·M·N, i.e. S < 2·M·N: the per-step contraction is thin (batch-like: an
  // RNN's weight gradient has S = B·(M+N) against M·N = 4H·H). Otherwise the per-step GEMM is already efficient and
  // stacking only costs memory: declined.
  double max_stacked_per_accumulator = 2.0;
  // Memory limit: the operands stacked for all carries of one scan (L × S × element size)
  // may not exceed this; the scan's residuals are stacked the same way, so 256 MiB leaves
  // the perf shapes (≤ 52 MiB of stacked gates at B64 T100 H512) well inside.
  int64_t max_stacked_bytes = int64_t(256) << 20;
  bool recurse = true;  // also rewrite scans inside sub-programs
};

// Decline tags (PassNote::reason).
inline constexpr const char* kAccNotAnAccumulator = "carry is not a dot accumulator";
inline constexpr const char* kAccCarryReadElsewhere = "accumulator read in the body";
inline constexpr const char* kAccDotUsedTwice = "dot result used twice";
inline constexpr const char* kAccOperand = "operand not per step";
inline constexpr const char* kAccNotThin = "per-step dot not thin: stacking costs more than it saves";
inline constexpr const char* kAccMemory = "stacked operands over the memory limit";

HoistResult hoist_scan_accumulations(const Program& program, const AccumulationHoistOptions& options = {});

// The pass on a vjp's backward program (where the backward scans carry the weights'
// cotangents); the forward is left alone. `log` (optional) receives the notes as text.
VjpProgram hoist_backward_accumulations(VjpProgram v, const AccumulationHoistOptions& options = {},
                                        std::vector<std::string>* log = nullptr);

}  // namespace tandem
