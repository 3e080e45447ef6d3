// cond's batching (JAX's _cond_batching_rule); its reverse mode needs the vjp pass on the
// branches and lives there (engine/passes/vjp_cond.cc).
// - vmap with the index unmapped: each branch batched, an output mapped in any branch mapped
//   in all (at axis 0). With the index mapped, examples take different branches: every branch
//   runs on the whole batch and a select per example picks its branch's outputs (JAX's
//   select_n of the branches), an index outside [0, n) picking the last, as the impl does.
#include "engine/core/error.h"
#include "engine/ir/inline_program.h"
#include "engine/prims/batch_rules.h"
#include "engine/prims/cond.h"

namespace tandem {
namespace {
using Result = std::pair<std::vector<Value>, std::vector<BatchAxis>>;
using Axes = std::vector<BatchAxis>;

Result cond_index_unmapped(const std::vector<Value>& in, const Axes& axes, const Params& p, int64_t size) {
  const Axes ops_axes(axes.begin() + 1, axes.end());
  const std::vector<ProgramPtr> branches = cond_branches(p);
  const size_t nout = branches[0]->out_vars.size();
  std::vector<bool> mapped(nout, false);
  for (const ProgramPtr& b : branches) {
    BatchedProgram t = batch_program(*b, ops_axes, {}, size, "vmap of cond (branch)");
    for (size_t k = 0; k < nout; ++k) mapped[k] = mapped[k] || t.out_axes[k].has_value();
  }
  std::vector<OutDest> dests;
  Axes out_axes;
  for (bool m : mapped) {
    dests.push_back(m ? OutDest::at_axis(0) : OutDest::not_mapped());
    out_axes.push_back(m ? BatchAxis(0) : std::nullopt);
  }
  std::vector<Program> batched;
  for (const ProgramPtr& b : branches) batched.push_back(batch_program(*b, ops_axes, dests, size, "vmap of cond").program);
  return Result{cond(in[0], batched, std::vector<Value>(in.begin() + 1, in.end())), out_axes};
}

Result cond_index_mapped(const std::vector<Value>& in, const Axes& axes, const Params& p, int64_t size) {
  const Axes ops_axes(axes.begin() + 1, axes.end());
  const std::vector<Value> ops(in.begin() + 1, in.end());
  const std::vector<ProgramPtr> branches = cond_branches(p);
  const size_t nout = branches[0]->out_vars.size();
  const std::vector<OutDest> dests(nout, OutDest::at_axis(0));
  Builder& B = *in[0].builder();
  std::vector<std::vector<Value>> outs;
  for (const ProgramPtr& b : branches)
    outs.push_back(inline_program(B, batch_program(*b, ops_axes, dests, size, "vmap of cond").program, ops));
  Value idx = move_axis(in[0], *axes[0], 0);
  std::vector<Value> r = outs.back();  // an index matching no earlier branch: the last
  for (size_t i = branches.size() - 1; i-- > 0;) {
    Value is_i = compare(idx, broadcast_in_dim(B.literal(double(i), DType::i32), {size}, {}), "eq");
    for (size_t k = 0; k < nout; ++k) r[k] = select(broadcast_in_dim(is_i, r[k].shape(), {0}), outs[i][k], r[k]);
  }
  return Result{r, Axes(nout, 0)};
}

Result cond_batched(const std::vector<Value>& in, const Axes& axes, const Params& p) {
  const int64_t size = batch_size_of(in, axes);
  return axes[0] ? cond_index_mapped(in, axes, p, size) : cond_index_unmapped(in, axes, p, size);
}
}  // namespace

void register_cond_rules() {
  mutable_primitive("cond").batch = cond_batched;
}

}  // namespace tandem
