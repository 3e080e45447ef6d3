// checkpoint and checkpoint_name: shape rules, impls (run the body / identity), builders.
#include "engine/prims/checkpoint.h"

#include "engine/core/error.h"
#include "engine/ir/remat_policy.h"
#include "engine/prims/primitive_of.h"

namespace tandem {
namespace {

std::vector<AType> checkpoint_shape(const std::vector<AType>& in, const Params& p) {
  const Program& body = *p.get_program("body");
  if (body.in_types() != in)
    throw_bad_input(cat("checkpoint: body takes ", body.in_vars.size(),
                        " inputs of other types than the ", in.size(), " operands"),
                    "trace the body over the operands' types");
  policy_from_string(p.get_string("policy", "nothing_saveable"));  // unknown name: error now
  return body.out_types();
}

std::vector<Tensor> checkpoint_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  return ctx.run_program(*p.get_program("body"), in);
}

std::vector<Tensor> name_impl(const std::vector<Tensor>& in, const Params&, EvalContext&) {
  return {in.at(0)};
}
}  // namespace

std::vector<Value> checkpoint(const Program& body, const std::vector<Value>& in,
                              const std::string& policy, bool prevent_cse) {
  Builder* b = nullptr;
  for (const Value& v : in)
    if (v.builder()) b = v.builder();
  if (!b) throw_bad_input("checkpoint with no traced operands", "start from a Builder input");
  return b->bind("checkpoint", in,
                 {{"body", std::make_shared<const Program>(body)}, {"policy", policy}, {"prevent_cse", prevent_cse}});
}

Value checkpoint_name(Value x, const std::string& name) {
  if (!x.builder()) throw_bad_input("checkpoint_name of a literal", "name a traced value");
  return x.builder()->bind1("checkpoint_name", {x}, {{"name", name}});
}

void register_checkpoint_primitives() {
  Primitive c = primitive_of("checkpoint", kControlFlow | kRemat, {"body", "policy", "prevent_cse"}, checkpoint_shape,
                             checkpoint_impl);
  c.cuda = checkpoint_impl;  // runs the body on whatever backend the context names
  register_primitive(std::move(c));

  Primitive n = primitive_of("checkpoint_name", kAnnotation, {"name"});
  n.shape = [](const std::vector<AType>& in, const Params& p) {
    if (in.size() != 1) throw_bad_input("checkpoint_name takes 1 operand");
    if (p.get_string("name", "").empty()) throw_bad_input("checkpoint_name needs a non-empty `name` param");
    return std::vector<AType>{in[0]};
  };
  n.cpu = name_impl;
  n.cuda = name_impl;
  register_primitive(std::move(n));
}

}  // namespace tandem
