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
  // An output cotangent that is none stays JAX's symbolic zero through each branch's backward,
  // and an operand's cotangent no nonzero one reaches in any branch is left out, not zeros
  // (ct_dependence.h; JAX's transpose of each branch leaves it a Zero).
  std::vector<bool> linear(nops, false), zero(nops, false), reached;
  for (size_t k = 0; k < a.out_types.size(); ++k) {
    linear.push_back(true);
    zero.push_back(!a.cts[k].has_value());
  }
  std::vector<Program> backward;
  for (const ProgramPtr& b : cond_branches(p)) {
    Program joint = vjp_joint(*b, wrt);
    backward.push_back(trace(in, [&](Builder& B, const std::vector<Value>& v) {
      LinearInlined outs = inline_linear(B, joint, v, linear, zero);
      const long no = long(a.out_types.size());
      if (reached.empty()) reached.assign(outs.nonzero.begin() + no, outs.nonzero.end());
      for (size_t c = 0; c + no < outs.nonzero.size(); ++c) reached[c] = reached[c] || outs.nonzero[c + no];
      return std::vector<Value>(outs.out.begin() + no, outs.out.end());
    }));
  }
  std::vector<Value> args;
  for (size_t j = 0; j < nops; ++j) args.push_back(a.primal_in(1 + j));
  for (size_t k = 0; k < a.out_types.size(); ++k) args.push_back(a.ct(k));
  std::vector<Value> cts = cond(a.primal_in(0), backward, args);
  for (size_t j = 0, c = 0; j < nops; ++j)
    if (wrt[j]) {
      if (reached[c]) r[1 + j] = cts[c];
      ++c;
    }
  return r;
}

}  // namespace tandem
