// cond's reverse mode: engine/passes/vjp_cond.h.
#include "engine/passes/vjp_cond.h"

#include "engine/core/error.h"
#include "engine/passes/ct_dependence.h"
#include "engine/passes/vjp.h"
#include "engine/prims/cond.h"

namespace tandem {

using Cts = std::vector<std::optional<Value>>;

Cts cond_vjp(const VjpArgs& a, const Params& p) {
  const size_t nops = a.in_types.size() - 1;
  std::vector<bool> wrt(nops);
  bool any = false;
  for (size_t j = 0; j < nops; ++j) any |= wrt[j] = a.wants(1 + j);
  Cts r(a.in_types.size());
  if (!any) return r;
  std::vector<AType> in(a.in_types.begin() + 1, a.in_types.end());
  in.insert(in.end(), a.out_types.begin(), a.out_types.end());
  std::vector<Program> backward;
  for (const ProgramPtr& b : cond_branches(p)) {
    Program joint = vjp_joint(*b, wrt);
    backward.push_back(trace(in, [&](Builder& B, const std::vector<Value>& v) {
      std::vector<Value> outs = inline_program(B, joint, v);
      return std::vector<Value>(outs.begin() + long(a.out_types.size()), outs.end());
    }));
  }
  std::vector<Value> args;
  for (size_t j = 0; j < nops; ++j) args.push_back(a.primal_in(1 + j));
  for (size_t k = 0; k < a.out_types.size(); ++k) args.push_back(a.ct(k));
  // An operand's cotangent that no nonzero output cotangent reaches in any branch is JAX's
  // symbolic zero (its transpose of each branch leaves it a Zero): left out, not zeros.
  std::vector<bool> from(nops, false), reached;
  for (size_t k = 0; k < a.out_types.size(); ++k) from.push_back(a.cts[k].has_value());
  for (const Program& b : backward) {
    std::vector<bool> d = depends_on(b, from);
    if (reached.empty()) reached = d;
    for (size_t c = 0; c < d.size(); ++c) reached[c] = reached[c] || d[c];
  }
  std::vector<Value> cts = cond(a.primal_in(0), backward, args);
  for (size_t j = 0, c = 0; j < nops; ++j)
    if (wrt[j]) {
      if (reached[c]) r[1 + j] = cts[c];
      ++c;
    }
  return r;
}

}  // namespace tandem
