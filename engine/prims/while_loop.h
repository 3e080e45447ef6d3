// The while primitive (engine/prims/while_loop.cc): its builder function, and the pieces its
// backends share: the host-driven loop, which the CPU and CUDA impls run with their own read
// of the predicate (a host byte; a device byte copied back).
#pragma once
#include <functional>
#include <vector>

#include "engine/ir/builder.h"
#include "engine/ir/primitive.h"

namespace tandem {

// A runaway loop is bad input, not a hang: no program the suites or an import run needs more.
inline constexpr int64_t kWhileMaxIterations = int64_t(1) << 26;

// lax.while_loop: cond (cond_consts..., carry...) -> bool[], body (body_consts..., carry...)
// -> carry...; the carry once cond is false.
std::vector<Value> while_loop(const Program& cond, const Program& body, const std::vector<Value>& cond_consts,
                              const std::vector<Value>& body_consts, const std::vector<Value>& init);

// Runs cond and body through ctx.run_program until `holds(cond's output)` is false; returns
// the final carry.
std::vector<Tensor> run_while_loop(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx,
                                   const std::function<bool(const Tensor&)>& holds);

}  // namespace tandem
