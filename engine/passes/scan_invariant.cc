// Loop-invariant values of a scan body and their hoisted computation (scan_invariant.h).
#include "engine/passes/scan_invariant.h"

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "engine/ir/primitive.h"

namespace tandem {

std::vector<bool> invariant_outputs(const Program& f, size_t num_consts) {
  std::unordered_set<int64_t> inv;
  for (size_t i = 0; i < num_consts; ++i) inv.insert(f.in_vars[i]->id);
  for (const Eqn& e : f.eqns) {
    bool all = !e.prim->has(kCollective);
    for (const Atom& a : e.in) all = all && (a.is_literal() || inv.count(a.var->id));
    if (all)
      for (const Var& v : e.out) inv.insert(v->id);
  }
  std::vector<bool> r;
  for (const Atom& a : f.out_vars) r.push_back(a.is_literal() || inv.count(a.var->id) > 0);
  return r;
}

InvariantSlice invariant_slice(const Program& f, size_t num_consts, const std::vector<size_t>& outs) {
  std::unordered_map<int64_t, const Eqn*> producer;
  for (const Eqn& e : f.eqns)
    for (const Var& v : e.out) producer[v->id] = &e;
  Builder b;
  std::unordered_map<int64_t, Value> env;
  for (size_t i = 0; i < num_consts; ++i) env.emplace(f.in_vars[i]->id, b.input(f.in_vars[i]->type.shape, f.in_vars[i]->type.dtype));
  InvariantSlice r;
  std::function<Value(const Atom&)> val = [&](const Atom& a) -> Value {
    if (a.is_literal()) return b.literal(a.literal->value, a.literal->dtype);
    if (auto it = env.find(a.var->id); it != env.end()) return it->second;
    const Eqn& e = *producer.at(a.var->id);
    std::vector<Value> args;
    for (const Atom& in : e.in) args.push_back(val(in));
    std::vector<Value> o = b.bind(e.prim->name, args, e.params);
    r.applications.add(applications(e));
    for (size_t k = 0; k < o.size(); ++k) env[e.out[k]->id] = o[k];
    return env.at(a.var->id);
  };
  std::vector<Value> res;
  for (size_t j : outs) res.push_back(val(f.out_vars.at(j)));
  Program p = b.build(res);
  // Keep only the consts it reads: the level passes nothing more.
  std::unordered_set<int64_t> read;
  for (const Eqn& e : p.eqns)
    for (const Atom& a : e.in)
      if (!a.is_literal()) read.insert(a.var->id);
  for (const Atom& a : p.out_vars)
    if (!a.is_literal()) read.insert(a.var->id);
  std::vector<Var> kept;
  for (size_t i = 0; i < p.in_vars.size(); ++i)
    if (read.count(p.in_vars[i]->id)) {
      kept.push_back(p.in_vars[i]);
      r.consts.push_back(i);
    }
  p.in_vars = kept;
  r.program = std::move(p);
  return r;
}

}  // namespace tandem
