// Typecheck implementation.
#include "engine/ir/typecheck.h"

#include <unordered_set>

#include "engine/core/error.h"
#include "engine/ir/primitive.h"

namespace tandem {

void typecheck_eqn(const Eqn& eqn, const std::string& where) {
  std::vector<AType> in_types;
  for (const Atom& a : eqn.in) in_types.push_back(a.type());
  std::vector<AType> want;
  try {
    want = eqn.prim->shape(in_types, eqn.params);
  } catch (const Error& err) {
    throw_bad_input(cat("typecheck: ", where, ": ", err.message()), err.hint());
  }
  if (want.size() != eqn.out.size())
    throw_bad_input(cat("typecheck: ", where, " has ", eqn.out.size(), " outputs, rule says ", want.size()));
  for (size_t k = 0; k < want.size(); ++k)
    if (want[k] != eqn.out[k]->type)
      throw_bad_input(cat("typecheck: ", where, " output ", k, " is ", eqn.out[k]->type.str(),
                          ", rule says ", want[k].str()));
}

void typecheck(const Program& p) {
  std::unordered_set<int64_t> defined;
  auto define = [&](const Var& v, const std::string& where) {
    if (!defined.insert(v->id).second)
      throw_bad_input(cat("typecheck: variable ", v->type.str(), " assigned twice (", where, ")"));
  };
  for (const Var& v : p.in_vars) define(v, "program input");
  for (size_t e = 0; e < p.eqns.size(); ++e) {
    const Eqn& eqn = p.eqns[e];
    std::string where = cat("eqn ", e, " ", eqn.prim->name);
    for (const Atom& a : eqn.in)
      if (!a.is_literal() && !defined.count(a.var->id))
        throw_bad_input(cat("typecheck: ", where, " reads a variable before it is defined"));
    typecheck_eqn(eqn, where);
    for (auto& [key, param] : eqn.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&param)) typecheck(**sub);
    for (const Var& v : eqn.out) define(v, where);
  }
  for (const Atom& a : p.out_vars)
    if (!a.is_literal() && !defined.count(a.var->id)) throw_bad_input("typecheck: a program output is never defined");
}

}  // namespace tandem
