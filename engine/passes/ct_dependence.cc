// Structural dependence of a program's outputs on its inputs: ct_dependence.h.
#include "engine/passes/ct_dependence.h"

#include <unordered_set>

#include "engine/core/error.h"

namespace tandem {

std::vector<bool> depends_on(const Program& p, const std::vector<bool>& from) {
  TANDEM_CHECK(from.size() == p.in_vars.size(), "depends_on: ", from.size(), " flags for ", p.in_vars.size(), " inputs");
  std::unordered_set<int64_t> dep;
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i]) dep.insert(p.in_vars[i]->id);
  auto depends = [&](const Atom& a) { return !a.is_literal() && dep.count(a.var->id) > 0; };
  for (const Eqn& e : p.eqns) {
    bool any = false;
    for (const Atom& a : e.in) any = any || depends(a);
    if (any)
      for (const Var& v : e.out) dep.insert(v->id);
  }
  std::vector<bool> r;
  for (const Atom& a : p.out_vars) r.push_back(depends(a));
  return r;
}

}  // namespace tandem
