// cond's reverse mode (JAX's _cond_transpose with partial evaluation), a rule of the vjp pass
// rather than of the primitive table, as scan's and checkpoint's: the backward is a cond on the
// same index whose branch i is branch i's joint vjp (it re-runs the branch's forward, then its
// backward) keeping only the operands' cotangents; the residuals are the index and the
// operands. The cotangents equal JAX's; JAX saves each branch's own residuals instead (zeros
// from the branches not taken), so the saved residuals of a program with a cond differ from JAX's.
#pragma once
#include <optional>
#include <vector>

#include "engine/ir/primitive.h"
#include "engine/ir/vjp_args.h"

namespace tandem {

std::vector<std::optional<Value>> cond_vjp(const VjpArgs& a, const Params& p);

}  // namespace tandem
