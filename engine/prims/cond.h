// The cond primitive (lax.cond / lax.switch, JAX's cond_p): an i32 index scalar chooses which
// of the branch sub-programs runs on the remaining operands (every branch takes and returns
// the same types). An index outside [0, n) runs the last branch, as XLA's Conditional does
// (lax.switch clamps before binding, lax.cond binds 0 or 1). Registration, shape rule and the
// CPU impl: cond.cc; reverse mode and batching: cond_rules.cc.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "engine/ir/builder.h"
#include "engine/ir/primitive.h"

namespace tandem {

// Branches travel as the params branch_0 … branch_{n-1}: a param is one program.
inline constexpr int kMaxCondBranches = 16;
std::string cond_branch_param(int i);

// lax.switch(index, branches, *operands): the chosen branch's outputs.
std::vector<Value> cond(Value index, const std::vector<Program>& branches, const std::vector<Value>& operands);
// The branches of a cond's params, in order (checked: at least one, no gaps).
std::vector<ProgramPtr> cond_branches(const Params& p);
// The branch an index selects among n: index itself if in [0, n), else n - 1.
int64_t cond_branch_index(int64_t index, int64_t n);
// Runs the selected branch through ctx.run_program; `index` is read by the backend.
std::vector<Tensor> run_cond(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx, int64_t index);

}  // namespace tandem
