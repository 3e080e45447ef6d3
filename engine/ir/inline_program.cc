// inline_program: a program's equations bound again into another builder (inline_program.h).
#include "engine/ir/inline_program.h"

#include <unordered_map>

#include "engine/core/error.h"

namespace tandem {

std::vector<Value> inline_program(Builder& b, const Program& p, const std::vector<Value>& in) {
  TANDEM_CHECK(in.size() == p.in_vars.size(), "inline_program: arity");
  std::unordered_map<int64_t, Value> env;
  for (size_t i = 0; i < in.size(); ++i) env[p.in_vars[i]->id] = in[i];
  auto val = [&](const Atom& a) { return a.is_literal() ? b.literal(a.literal->value, a.literal->dtype) : env.at(a.var->id); };
  for (const Eqn& e : p.eqns) {
    std::vector<Value> args;
    for (const Atom& a : e.in) args.push_back(val(a));
    std::vector<Value> outs = b.bind(e.prim->name, args, e.params);
    for (size_t k = 0; k < outs.size(); ++k) env[e.out[k]->id] = outs[k];
  }
  std::vector<Value> r;
  for (const Atom& a : p.out_vars) r.push_back(val(a));
  return r;
}

}  // namespace tandem
