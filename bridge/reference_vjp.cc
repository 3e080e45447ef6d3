// Taped reference interpreter of the IR (see reference_vjp.h): a loop over the equations,
// each recorded on the tape by its primitive's row of the reference rule table
// (reference_rules.h).
#include "bridge/reference_vjp.h"

#include "bridge/reference_rules.h"
#include "engine/core/error.h"

namespace tandem {
namespace {
using Id = ref::Tape::Id;

std::vector<Id> run(ref::Tape& t, const Program& p, const std::vector<Id>& in) {
  RefTapeContext ctx{t, [&t](const Program& body, const std::vector<Id>& args) { return run(t, body, args); }};
  return walk_program(
      p, in, [&t](const Literal& l) { return t.constant(ref::scalar(l.dtype, l.value)); },
      [&](const Eqn& e, const std::vector<Id>& args) { return reference_rule(e.prim->name).tape(e, args, ctx); },
      "reference vjp");
}
}  // namespace

std::vector<ref::Array> reference_vjp(const Program& program, const std::vector<ref::Array>& inputs,
                                      const std::vector<ref::Array>& out_cts, const ref::Tape::Hold& hold) {
  if (inputs.size() != program.in_vars.size() || out_cts.size() != program.out_vars.size())
    throw_bad_input(cat("reference_vjp: ", inputs.size(), " inputs and ", out_cts.size(), " cotangents for a program of ",
                        program.in_vars.size(), " inputs and ", program.out_vars.size(), " outputs"));
  ref::Tape t;
  std::vector<Id> in, wrt;
  for (const ref::Array& a : inputs) {
    bool diff = is_floating(a.dtype);
    in.push_back(diff ? t.input(a) : t.constant(a));
    if (diff) wrt.push_back(in.back());
  }
  std::vector<Id> out = run(t, program, in);
  std::vector<std::pair<Id, ref::Array>> seeds;
  for (size_t k = 0; k < out.size(); ++k) seeds.push_back({out[k], out_cts[k]});
  return t.gradients(seeds, wrt, hold);
}

}  // namespace tandem
