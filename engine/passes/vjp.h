// Reverse mode over the IR, split in two programs so residuals and peak memory are visible:
//   forward : (inputs...)                      -> (outputs..., residuals...)
//   backward: (residuals..., output cts...)    -> (cotangents of the `wrt` inputs...)
// Each equation's VjpRule (Primitive::vjp, engine/ir/vjp_args.h) emits its input cotangents
// into the backward builder. Primal values a rule reads are either residuals (saved by the
// forward) or are recomputed in the backward. Outside any checkpoint everything is saveable
// (the policy argument changes that for the top level); inside checkpoint(body, policy) the
// policy decides per equation (engine/ir/remat_policy.h). A checkpoint is linearized on its
// own (its body gets a forward and a backward), its forward is inlined, and the enclosing
// level saves or recomputes the inner residuals under its own policy: nesting gives
// recursive remat; under an enclosing checkpoint or top-level policy a nested checkpoint is
// linearized under the enclosing policy, not its own (JAX's partial evaluation passes the
// enclosing `saveable` down: the outer policy wins). Only active values get a cotangent:
// floating ones a differentiated input reaches (integer carries and outputs, and
// one_hot(tokens), get none, as JAX's float0 / symbolic zeros). A scan is partially evaluated as JAX does (vjp_scan.h): its body is
// linearized under the enclosing level's policy, the residuals it saves are stacked across
// steps ([L, ...]) by the forward scan (a loop-invariant one, computed from the consts only,
// is saved once, unstacked), and a backward scan recomputes only the rest. Under
// remat (inside a checkpoint, or under a top-level policy other than everything_saveable,
// which is jax.checkpoint(f, policy)) the carries are not saved: the backward replays the
// forward scan from the scan's operands and the stacked values the policy saved (a saved dot
// is read, not re-run), rebuilding the carries for the backward scan and the scan outputs
// the enclosing backward reads and the policy does not save (scan_replay.h), and stacking
// every per-step value the backward scan reads and the policy does not save: the backward
// scan then recomputes nothing, and each forward application is re-run once, as in JAX.
// Recomputation is lazy (only what the cotangents read, as JAX's DCE'd remat). What the
// policy offloads is moved by explicit device_put equations (engine/passes/offload.h): the
// forward returns it in pinned host memory, the backward brings it back before its first use.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ir/builder.h"
#include "engine/ir/inline_program.h"  // what users of the pass join its programs with
#include "engine/ir/remat_policy.h"
#include "engine/ir/vjp_args.h"

namespace tandem {

struct Residual {
  AType type;
  std::string source;      // "from the argument 0", "output of sin", "named 'y'" ...
  bool is_argument = false;
  bool offloaded = false;  // moved to pinned host memory by the forward, back by the backward (offload.h)
  // A replayed scan body's (vjp_scan.h): a value the policy does not save, which the scan's
  // replay computes and stacks once, so the backward scan reads it instead of recomputing it.
  bool replayed = false;
  int64_t bytes() const { return num_elements(type.shape) * int64_t(dtype_size(type.dtype)); }
};

// Primitive applications the backward re-runs: each executed application counts, so an
// equation inside a scan body counts once per step (a scan eqn itself counts 1, its body
// × length), exactly what the executor's run hook sees.
struct RecomputeStats {
  int64_t eqns = 0;      // primitive applications recomputed in the backward
  double flops = 0;      // their estimated FLOPs (2·M·N·K for dots, 1 per element otherwise)
  std::map<std::string, int64_t> by_prim;
  void add(const RecomputeStats& o, int64_t times = 1);
};
// The applications running `e` performs (sub-programs included).
RecomputeStats applications(const Eqn& e);

struct VjpProgram {
  Program forward;
  Program backward;
  std::vector<Residual> residuals;  // in the order they follow the outputs
  RecomputeStats recompute;
  std::vector<bool> wrt;
  size_t num_outputs = 0;
};

// wrt: one flag per input (empty: all floating inputs). An integer or bool output takes a
// cotangent input that nothing reads.
VjpProgram vjp(const Program& p, std::vector<bool> wrt = {}, const Policy& top_policy = everything_saveable());

// The joint program (inputs..., output cts...) -> (outputs..., cts of wrt inputs...).
Program vjp_joint(const Program& p, std::vector<bool> wrt = {});

// Runs forward then backward on one backend; the caller holds everything it returns.
struct VjpRun {
  std::vector<Tensor> outputs, residuals, cotangents;
};
// on_eqn (optional) sees every primitive application the executor runs, sub-programs
// included, tagged with the phase ("forward" / "backward").
VjpRun run_vjp(const VjpProgram& v, const std::vector<Tensor>& inputs, const std::vector<Tensor>& output_cts,
               Device device = Device::cpu(), const std::function<void(const char* phase, const Eqn&)>& on_eqn = {});

// FLOP estimate of one equation, its own work only (used by the recompute counts).
double eqn_flops(const Eqn& e);

}  // namespace tandem
