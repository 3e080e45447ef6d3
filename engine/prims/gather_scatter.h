// gather and scatter_add (JAX's lax.gather / lax.scatter_add, XLA's semantics): their params
// read back as dimension numbers, the shape checks, and the index map both backends walk
// (gather_plan.h). Registration and the CPU impls are gather_scatter.cc.
#pragma once
#include "engine/ir/builder_indexing.h"
#include "engine/prims/gather_plan.h"

namespace tandem {

GatherDims gather_dims_of(const Params& p);
ScatterDims scatter_dims_of(const Params& p);
// The mode param, checked: "CLIP", "FILL_OR_DROP" or "PROMISE_IN_BOUNDS" (anything else is bad input).
std::string index_mode(const Params& p, const char* op);
// FILL_OR_DROP's fill for a gather of dtype t: the fill_value param, else JAX's default.
double gather_fill_value(const Params& p, DType t);
// The operand window of a scatter_add: 1 on inserted and batching dims, else the updates' extent.
Shape scatter_window(const AType& operand, const AType& updates, const ScatterDims& d);

// The map from gather's output (scatter_add's updates) to the operand, shapes checked
// (throws bad input naming the problem). Gather clamps under CLIP and PROMISE_IN_BOUNDS;
// scatter_add clamps under CLIP and drops out-of-range windows otherwise, as XLA does.
IndexMap gather_index_map(const AType& operand, const AType& indices, const Params& p);
IndexMap scatter_index_map(const AType& operand, const AType& indices, const AType& updates, const Params& p);

}  // namespace tandem
