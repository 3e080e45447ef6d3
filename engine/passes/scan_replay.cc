// Builds the replay step of a scan under remat (see scan_replay.h).
#include "engine/passes/scan_replay.h"

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "engine/core/error.h"

namespace tandem {

CarryReplay carry_replay(const VjpProgram& body, size_t num_carry, const std::vector<size_t>& ys,
                         const std::vector<size_t>& produce) {
  const Program& f = body.forward;
  const size_t nin = f.in_vars.size(), nout = body.num_outputs;
  std::unordered_map<int64_t, const Eqn*> producer;
  for (const Eqn& e : f.eqns)
    for (const Var& v : e.out) producer[v->id] = &e;
  // checkpoint_name is the identity: a value and its names are one buffer, saved once.
  auto root_of = [&](int64_t id) {
    for (auto it = producer.find(id); it != producer.end() && it->second->prim->name == "checkpoint_name";
         it = producer.find(id)) {
      if (it->second->in[0].is_literal()) break;
      id = it->second->in[0].var->id;
    }
    return id;
  };
  Builder b;
  std::vector<Value> ins;
  for (const Var& v : f.in_vars) ins.push_back(b.input(v->type.shape, v->type.dtype));
  std::unordered_map<int64_t, Value> env;
  for (size_t i = 0; i < nin; ++i) env.emplace(f.in_vars[i]->id, ins[i]);
  std::unordered_map<int64_t, size_t> residual_of_root;
  std::unordered_set<size_t> produced(produce.begin(), produce.end());
  for (size_t j = 0; j < body.residuals.size(); ++j) {
    const Atom& a = f.out_vars.at(nout + j);
    ins.push_back(b.input(body.residuals[j].type.shape, body.residuals[j].type.dtype));
    if (!a.is_literal() && !produced.count(j)) residual_of_root.emplace(root_of(a.var->id), nin + j);
  }
  CarryReplay r;
  std::function<Value(const Atom&)> val = [&](const Atom& a) -> Value {
    if (a.is_literal()) return b.literal(a.literal->value, a.literal->dtype);
    if (auto it = env.find(a.var->id); it != env.end()) return it->second;
    if (auto it = residual_of_root.find(root_of(a.var->id)); it != residual_of_root.end())
      return env.emplace(a.var->id, ins[it->second]).first->second;
    const Eqn& e = *producer.at(a.var->id);  // not saved: re-run its equation
    std::vector<Value> args;
    for (const Atom& in : e.in) args.push_back(val(in));
    std::vector<Value> outs = b.bind(e.prim->name, args, e.params);
    r.recompute.add(applications(e));
    for (size_t k = 0; k < outs.size(); ++k) env[e.out[k]->id] = outs[k];
    return env.at(a.var->id);
  };
  std::vector<Value> outs;
  for (size_t i = 0; i < num_carry; ++i) outs.push_back(val(f.out_vars.at(i)));
  for (size_t y : ys) outs.push_back(val(f.out_vars.at(num_carry + y)));
  for (size_t j : produce) outs.push_back(val(f.out_vars.at(nout + j)));
  Program p = b.build(outs);
  // Keep only the inputs these outputs depend on: the replay scan reads nothing more.
  std::unordered_map<int64_t, bool> read;
  for (const Eqn& e : p.eqns)
    for (const Atom& a : e.in)
      if (!a.is_literal()) read[a.var->id] = true;
  for (const Atom& a : p.out_vars)
    if (!a.is_literal()) read[a.var->id] = true;
  std::vector<Var> kept;
  for (size_t q = 0; q < p.in_vars.size(); ++q)
    if (read.count(p.in_vars[q]->id)) {
      kept.push_back(p.in_vars[q]);
      r.inputs.push_back(q);
    }
  p.in_vars = kept;
  r.program = std::move(p);
  return r;
}

}  // namespace tandem
