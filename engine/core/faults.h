// Fault injection: named faults that make the ENGINE (never the reference) behave like a bug
// a real engine shipped, so `tandem faults` can measure whether each suite catches it
// (docs/FAULTS.md). Compiled in always; switched on for a whole process by
// `tandem run|check --inject NAME` or TANDEM_INJECT=NAME. Off, a hook costs one load and
// compare of a global (fault_on), taken outside inner loops.
//
// How to add one: a row in TANDEM_FAULTS below, then a commented one-line hook at the spot in
// engine/ that goes wrong, `if (fault_on(Fault::NAME)) ...`. `tandem faults` picks it up.
#pragma once
#include <string>
#include <vector>

namespace tandem {

// The one table: X(name, owning suite, the real-world bug it mimics). Owner "perf": a planted
// slowdown, no wrong number; `tandem faults` leaves it out, the gate's calibration
// (reports/gate_calibrate.py, docs/CI.md) measures how often the perf gate catches it. Owner
// "crash": the process dies; `tandem faults` leaves it out too — the harness's own test of
// crash isolation (runners/cli/case_workers.h) plants it.
#define TANDEM_FAULTS(X)                                                                                  \
  X(dot_bf16_truncate, "dot", "bf16 input conversion truncates instead of rounding to nearest even")      \
  X(dot_tf32_truncate, "dot", "tf32 input conversion truncates instead of rounding to nearest even")      \
  X(dot_f8_truncate, "dot", "f8 (e4m3fn/e5m2) operand conversion truncates instead of rounding to nearest") \
  X(dot_x3_single_pass, "dot", "BF16_BF16_F32_X3 runs as one bf16 pass (hi*hi only)")                      \
  X(dot_x6_as_x3, "dot", "BF16_BF16_F32_X6 computes only the three products of X3")                        \
  X(dot_split_nan_guard_dropped, "dot", "split presets lose the NaN guard: Inf*0 cross terms turn Inf into NaN") \
  X(dot_odd_k_drops_last_term, "dot", "an odd contraction length drops its last term (vector tail bug)")  \
  X(dot_nan_replaced_by_zero, "dot", "the first NaN of a result is silently replaced by 0 (fast-math epilogue)") \
  X(dot_f16_accumulator_as_bf16, "dot", "F16_F16_F16 accumulates in bf16 (wrong narrow accumulator type)") \
  X(lstm_gates_f_g_swapped, "lstm", "forget and cell gates swapped (weights read in another gate order)")  \
  X(lstm_reverse_ignores_seq_lengths, "lstm", "the reverse direction starts at T-1 instead of at each length") \
  X(lstm_forward_ignores_seq_lengths, "lstm", "padded steps update the state (seq_lengths ignored forward)") \
  X(lstm_dw_hh_last_step_only, "lstm", "dW_hh keeps one step's term (overwrite instead of accumulate)")    \
  X(lstm_dx_overwrites_directions, "lstm", "bidirectional dx keeps only the reverse direction's term")     \
  X(lstm_hh_bias_dropped, "lstm", "the recurrent bias b_hh is dropped on import")                          \
  X(coll_all_gather_rank_reversed, "collectives", "all_gather stacks the members in reversed order")      \
  X(coll_ppermute_one_wrong_rank, "collectives", "ppermute routes one pair of the permutation to a wrong rank") \
  X(coll_group_order_ignored, "collectives", "axis_index_groups ordered by world rank, not as listed")     \
  X(coll_pmean_divides_by_world, "collectives", "pmean divides by the world size, not the group size")    \
  X(coll_ragged_output_offset_off_by_one, "collectives", "ragged_all_to_all lands slices one row early")  \
  X(coll_axis_index_ignores_groups, "collectives", "axis_index returns the world rank inside groups")     \
  X(remat_policy_saves_everything, "remat", "a checkpoint policy silently saves every residual")          \
  X(remat_scan_carries_stacked, "remat", "a scan inside a checkpoint saves its carries stacked, no replay") \
  X(remat_scan_invariant_stacked, "remat", "a scan stacks a loop-invariant residual (a weight's transpose) per step, not once") \
  X(remat_scan_recomputes_twice, "remat", "a scan under remat replays its forward, then recomputes each step's values again") \
  X(vjp_scan_const_cotangent_overwritten, "remat", "vjp of scan overwrites the weights' cotangent each step") \
  X(vjp_scan_backward_wrong_direction, "remat", "the backward scan runs in the forward's direction")      \
  X(scan_drops_first_step, "remat", "scan skips its first step (loop starts at 1)")                        \
  X(scan_drops_last_step, "scan_hoist", "scan skips its last step (loop bound length-1)")                  \
  X(scan_reverse_ignored, "scan_hoist", "scan with reverse=True runs forward")                             \
  X(hoist_drops_final_scaling, "scan_hoist", "the hoisting rewrite drops the scaling after the reduction") \
  X(reduce_sum_odd_drops_last, "scan_hoist", "reduce_sum over an odd contiguous length skips the last element") \
  X(vmap_reducer_axis_unshifted, "vmap", "the reduction batching rule reports the batch axis unshifted")   \
  X(vmap_ragged_offset_off_by_one, "vmap", "ragged items start one row early (offset off by one)")        \
  X(vmap_dot_batch_axis_misplaced, "vmap", "dot_general's batching rule misplaces the batch axis among the free dims") \
  X(crash_vmap_axis_size_one, "crash", "vmap over an axis of size 1 dies with SIGSEGV (a null write in a special case)") \
  X(sticky_vmap_axis_size_one, "crash", "vmap over an axis of size 1 breaks the device context as a CUDA illegal address does: every later call fails") \
  X(perf_dot_extra_10pct, "perf", "the CPU dot kernel does 10% more work (a GEMM over a tenth of its rows twice)") \
  X(perf_dot_extra_25pct, "perf", "the CPU dot kernel does 25% more work (a GEMM over a quarter of its rows twice)") \
  X(perf_dot_twice, "perf", "the CPU dot kernel does twice the work (a GEMM over all of its rows twice)")

enum class Fault : int {
  none = 0,
#define TANDEM_FAULT_ENUM(name, suite, mimics) name,
  TANDEM_FAULTS(TANDEM_FAULT_ENUM)
#undef TANDEM_FAULT_ENUM
};

struct FaultInfo {
  Fault id;
  const char* name;
  const char* suite;   // the suite that owns the feature: it must catch the fault
  const char* mimics;  // the real-world bug, in one line
};

// Every fault, in table order.
const std::vector<FaultInfo>& fault_table();

// Switches `name` on for this process ("" switches faults off). An unknown name is bad input
// with a hint naming `tandem faults --list`.
void inject_fault(const std::string& name);
// TANDEM_INJECT, when set and not empty, as inject_fault.
void inject_fault_from_env();
// The injected fault, or nullptr.
const FaultInfo* injected_fault();

namespace detail {
extern Fault g_injected;
}
// The hook: true when `f` is injected. One load and compare.
inline bool fault_on(Fault f) { return detail::g_injected == f; }

}  // namespace tandem
