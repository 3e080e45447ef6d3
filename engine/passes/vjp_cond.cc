// cond's reverse mode: engine/passes/vjp_cond.h.
#include "engine/passes/vjp_cond.h"

#include "engine/core/error.h"
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
  std::vector<Value> cts = cond(a.primal_in(0), backward, args);
  for (size_t j = 0, c = 0; j < nops; ++j)
    if (wrt[j]) r[1 + j] = cts[c++];
  return r;
}

}  // namespace tandem
