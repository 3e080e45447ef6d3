// Reference interpreter: a loop over the equations, each evaluated by its primitive's row of
// the reference rule table (reference_rules.h).
#include "bridge/reference_bridge.h"

#include "bridge/reference_rules.h"

namespace tandem {

ref::Array to_ref(const Tensor& t) {
  ref::Array a;
  a.shape = t.shape();
  a.dtype = t.dtype();
  a.data = t.to_f64();
  return a;
}

Tensor from_ref(const ref::Array& a) { return Tensor::from_f64(a.data, a.shape, a.dtype); }

std::vector<ref::Array> reference_eval(const Program& prog, std::vector<ref::Array> inputs,
                                       const std::vector<std::string>& one_member_axes) {
  RefEvalContext ctx{[one_member_axes](const Program& p, std::vector<ref::Array> in) {
                       return reference_eval(p, std::move(in), one_member_axes);
                     },
                     one_member_axes};
  return walk_program(
      prog, std::move(inputs), [](const Literal& l) { return ref::scalar(l.dtype, l.value); },
      [&](const Eqn& e, const std::vector<ref::Array>& in) { return reference_rule(e.prim->name).eval(e, in, ctx); },
      "reference");
}

}  // namespace tandem
