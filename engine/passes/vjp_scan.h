// Scan partial evaluation for the vjp pass (JAX's scan partial_eval_jaxpr_custom rule): the
// scan body is linearized under the enclosing level's remat policy; each residual that body
// saves is classified by where the backward scan finds it:
//   consts  - a loop-invariant operand of the scan: passed whole to the backward scan;
//   xs      - a per-step slice of an xs operand: the xs operand itself is passed;
//   stacked - anything computed per step, and the carry entering each step (the carry-saving
//             optimisation: the backward never re-runs the forward to rebuild carries):
//             the forward scan emits it as an extra y, stacked [L, ...].
// The backward scan runs the body's backward per step in reverse order, recomputing only
// what the policy did not save, and accumulates the consts' cotangents in its carry.
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
  enum class From { consts, xs, stacked };
  struct Source {
    From from;
    size_t index;  // const or xs operand index, or stacked residual index
  };
  std::vector<Source> sources;            // one per body residual
  std::vector<size_t> stacked;            // body residual index of each stacked residual
  std::vector<size_t> used_consts, used_xs;  // operands the backward scan reads
  Params forward_params;                  // the forward scan: body emits stacked residuals
};

// Classifies the body's residuals and builds the forward scan's params.
ScanSplit split_scan(const Params& scan_params, VjpProgram body);

// Emits the forward scan into the operands' builder: primal outputs, then stacked residuals.
std::vector<Value> emit_forward_scan(const ScanSplit& s, const std::vector<Value>& operands);

// Emits the backward scan into `b`. consts / xs: the operands listed in used_consts /
// used_xs; stacked: the stacked residuals; out_cts: per scan output (nullopt: zero).
// Returns the cotangent of each scan operand (nullopt: not differentiable).
std::vector<std::optional<Value>> emit_backward_scan(
    Builder& b, const ScanSplit& s, const std::vector<Value>& consts, const std::vector<Value>& xs,
    const std::vector<Value>& stacked, const std::vector<std::optional<Value>>& out_cts,
    const std::vector<AType>& out_types);

}  // namespace tandem
