// Scan partial evaluation for the vjp pass (JAX's scan partial-evaluation rules): the scan body is linearized under the
// enclosing level's remat policy; each residual that body saves is classified by where the backward scan finds it:
//   consts  - a loop-invariant operand of the scan: passed whole to the backward scan;
//   xs      - a per-step slice of an xs operand: the xs operand itself is passed;
//   stacked - anything computed per step and, outside every checkpoint, the carry entering
//             each step (JAX's _scan_partial_eval: the backward never re-runs the forward to
//             rebuild carries): the forward scan emits it as an extra y, stacked [L, ...];
//   hoisted - computed from the consts only (a weight's transpose): loop-invariant, so, as
//             JAX's _scan_partial_eval, computed once outside the loop (the forward's before
//             the forward scan and saved unstacked; the replay's once in the backward) and
//             read whole by the replay and the backward scan (scan_invariant.h);
//   replayed - under remat, when the replay runs, a per-step value the body's backward reads
//             and the policy does not save: the replay scan computes it and stacks it, once,
//             so the backward scan recomputes nothing (JAX's transposed remat runs the primal
//             scan once; with no replay the backward scan recomputes it, once, per step);
//   carry   - under remat (replay = true: inside a checkpoint, or under a top-level policy
//             other than everything_saveable), the carry entering each step: not saved.
//             As JAX's scan rule for partial_eval_jaxpr_custom, the forward stacks only what
//             the policy saves, and the backward first re-runs the forward recurrence
//             (scan_replay.h) from it, stacking the carries for the backward scan.
// Under remat the replay also rebuilds the scan's primal outputs the enclosing backward reads and the policy does not
// save (`rebuild`): a loss's residual y, say, comes from the replay, which reads the stacked dots, instead of
// re-running the whole forward scan. The backward scan runs the body's backward per step in reverse order (under remat
// reading what the replay stacked, elsewhere the policy saves everything) and accumulates the consts' cotangents in its
// carry.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "engine/passes/vjp.h"

namespace tandem {

struct ScanSplit {
  std::shared_ptr<const VjpProgram> body;  // the body's forward/backward under the policy
  size_t nc = 0, nk = 0, nx = 0, ny = 0;   // consts, carry, xs, ys
  int64_t length = 0;
  bool reverse = false;
  enum class From { consts, xs, stacked, carry, hoisted, replayed };
  struct Source {
    From from;
    size_t index;  // const or xs operand index, or index in `stacked`, `carries`, `hoisted`, `replayed`
  };
  // A hoisted computation: (consts it reads...) -> (hoisted values...), run once.
  struct Hoist {
    ProgramPtr program;          // null: nothing hoisted
    std::vector<size_t> consts;  // const operand index of each input
    RecomputeStats applications;
  };
  std::vector<Source> sources;            // one per body residual
  std::vector<size_t> stacked;            // body residual index of each stacked residual
  // Body residual index of each loop-invariant residual: first the `hoisted_saved` the forward computes (hoist_forward)
  // and saves, then those the backward computes (hoist_backward: the policy does not save them).
  std::vector<size_t> hoisted;
  size_t hoisted_saved = 0;
  Hoist hoist_forward, hoist_backward;
  std::vector<size_t> replayed;           // body residual index of each value the replay stacks
  std::vector<size_t> used_consts, used_xs;  // operands the backward scan reads
  Params forward_params;                  // the forward scan: body emits stacked residuals
  // replay only: the carry index of each carry residual, and the replay scan (its body takes
  // replay_consts, replay_hoisted (index in `hoisted`); the carries; replay_xs rows,
  // replay_stacked rows; it emits the rebuilt ys (replay_ys: their index among the ys), the
  // `replayed` residuals, then the carries entering each step, in `carries` order, as ys).
  std::vector<size_t> carries, replay_consts, replay_hoisted, replay_xs, replay_stacked, replay_ys;
  std::vector<bool> rebuild;              // per scan output: the replay rebuilds it
  ProgramPtr replay_body;
  RecomputeStats replay_recompute;        // one step of the replay
  bool replay() const { return replay_body != nullptr; }
};

// Classifies the body's residuals and builds the forward scan's params (and, with replay,
// the replay scan's). rebuild (replay only; empty: none): per scan output (carries, ys),
// whether the replay must rebuild it for the enclosing level's backward.
ScanSplit split_scan(const Params& scan_params, VjpProgram body, bool replay = false,
                     const std::vector<bool>& rebuild = {});

// What the replay scan rebuilds: the final carries, the replay_ys, the `replayed` residuals
// and the carries entering each step (in `carries` order), stacked.
struct Replayed {
  std::vector<Value> finals, ys, residuals, entering;
};

// Emits the replay scan into `b` (replay only): consts / hoisted / xs / stacked as listed in
// replay_consts / replay_hoisted / replay_xs / replay_stacked, init the scan's initial carries.
Replayed emit_replay_scan(Builder& b, const ScanSplit& s, const std::vector<Value>& consts,
                          const std::vector<Value>& hoisted, const std::vector<Value>& init,
                          const std::vector<Value>& xs, const std::vector<Value>& stacked);

// Emits the forward scan into the operands' builder: primal outputs, then stacked residuals.
std::vector<Value> emit_forward_scan(const ScanSplit& s, const std::vector<Value>& operands);

// Emits the backward scan into `b`. consts / xs: the operands listed in used_consts / used_xs; hoisted: every hoisted
// residual; stacked: the stacked residuals, then (replay) the replayed residuals and the replayed carries; out_cts: per
// scan output (nullopt: zero). Returns the cotangent of each scan operand (nullopt: not differentiable).
std::vector<std::optional<Value>> emit_backward_scan(
    Builder& b, const ScanSplit& s, const std::vector<Value>& consts, const std::vector<Value>& hoisted,
    const std::vector<Value>& xs,
    const std::vector<Value>& stacked, const std::vector<std::optional<Value>>& out_cts,
    const std::vector<AType>& out_types);
// Given which output cotangents are nonzero (nullopt: a symbolic zero), JAX's symbolic zeros of the backward scan: per
// carry and y, whether its cotangent is live in the body (a dead one is a zero there), and per scan operand whether it
// gets a nonzero cotangent (emit_backward_scan leaves the others out: nullopt).
struct ScanCts {
  std::vector<bool> live, nonzero;
};
ScanCts scan_cts(const ScanSplit& s, const std::vector<std::optional<Value>>& out_cts);

}  // namespace tandem
