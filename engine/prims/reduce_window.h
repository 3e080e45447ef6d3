// reduce_window_max and reduce_window_sum (JAX's lax.reduce_window_max_p / reduce_window_sum_p:
// max and average pooling): their params read back and checked, and the walk both backends
// share (window_plan.h). Registration and the CPU impls are reduce_window.cc.
#pragma once
#include "engine/ir/builder_window.h"
#include "engine/prims/window_plan.h"

namespace tandem {

// The params as WindowDims, checked against the operand (throws bad input naming the problem).
WindowDims window_dims_of(const AType& operand, const Params& p, const char* op);
// The output shape: per dim floor((dilated + lo + hi - dilated window) / stride) + 1, or 0.
Shape reduce_window_shape(const AType& operand, const WindowDims& w);
WindowPlan window_plan(const AType& operand, const WindowDims& w);

}  // namespace tandem
