// Symbolic zero cotangents: ct_dependence.h.
#include "engine/passes/ct_dependence.h"

#include <unordered_map>
#include <unordered_set>

#include "engine/core/error.h"
#include "engine/ir/vjp_args.h"

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

LinearInlined inline_linear(Builder& b, const Program& p, const std::vector<Value>& in,
                            const std::vector<bool>& linear, const std::vector<bool>& zero) {
  TANDEM_CHECK(in.size() == p.in_vars.size() && linear.size() == in.size() && zero.size() == in.size(),
               "inline_linear: arity");
  std::unordered_map<int64_t, Value> env;
  std::unordered_set<int64_t> zeroed, live;  // structural zeros; values a nonzero linear input reaches
  for (size_t i = 0; i < in.size(); ++i) {
    env[p.in_vars[i]->id] = in[i];
    if (linear[i]) (zero[i] ? zeroed : live).insert(p.in_vars[i]->id);
  }
  auto in_set = [](const std::unordered_set<int64_t>& s, const Atom& a) { return !a.is_literal() && s.count(a.var->id) > 0; };
  auto val = [&](const Atom& a) {
    if (a.is_literal()) return b.literal(a.literal->value, a.literal->dtype);
    return zeroed.count(a.var->id) ? zeros(b, a.type()) : env.at(a.var->id);
  };
  for (const Eqn& e : p.eqns) {
    bool any_zero = false, any_live = false;
    for (const Atom& a : e.in) {
      any_zero = any_zero || in_set(zeroed, a);
      any_live = any_live || in_set(live, a);
    }
    if (any_zero && !any_live) {  // linear in zeros only: zeros, not emitted
      for (const Var& v : e.out) zeroed.insert(v->id);
      continue;
    }
    std::vector<Value> args;
    for (const Atom& a : e.in) args.push_back(val(a));
    std::vector<Value> outs = b.bind(e.prim->name, args, e.params);
    for (size_t k = 0; k < outs.size(); ++k) {
      env[e.out[k]->id] = outs[k];
      if (any_live) live.insert(e.out[k]->id);
    }
  }
  LinearInlined r;
  for (const Atom& a : p.out_vars) {
    r.out.push_back(val(a));
    r.nonzero.push_back(in_set(live, a));
  }
  return r;
}

}  // namespace tandem
