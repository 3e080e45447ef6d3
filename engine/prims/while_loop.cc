// while (lax.while_loop semantics): operands are cond_consts, body_consts and the initial
// carry, JAX's cond_nconsts / body_nconsts convention. cond maps (cond_consts..., carry...)
// to a bool scalar, body maps (body_consts..., carry...) to the next carry; the output is the
// carry once cond is false. The trip count depends on the data, so reverse mode has no rule
// (engine/prims/vjp_rules.cc refuses it, as JAX does); batching: batch_rules_while.cc.
#include <cstdint>
#include <cstring>

#include "engine/prims/while_loop.h"

#include "engine/prims/primitive_of.h"
#include "engine/core/error.h"

namespace tandem {
namespace {

struct WhileSig {
  int64_t cond_nconsts, body_nconsts;
  const Program* cond;
  const Program* body;
};

WhileSig signature(const Params& p) {
  WhileSig s{p.get_int("cond_nconsts"), p.get_int("body_nconsts"), p.get_program("cond").get(),
             p.get_program("body").get()};
  if (s.cond_nconsts < 0 || s.body_nconsts < 0)
    throw_bad_input("while: cond_nconsts and body_nconsts must be non-negative");
  if (!s.cond || !s.body) throw_bad_input("while: cond and body must be programs");
  return s;
}

std::string types_str(const std::vector<AType>& ts) {
  std::string r;
  for (const AType& t : ts) r += (r.empty() ? "" : ", ") + t.str();
  return "(" + r + ")";
}

std::vector<AType> while_shape(const std::vector<AType>& in, const Params& p) {
  WhileSig s = signature(p);
  const int64_t nk = int64_t(in.size()) - s.cond_nconsts - s.body_nconsts;
  if (nk < 0)
    throw_bad_input(cat("while: ", in.size(), " operands but cond_nconsts + body_nconsts = ",
                        s.cond_nconsts + s.body_nconsts));
  const auto c0 = in.begin(), b0 = c0 + s.cond_nconsts, k0 = b0 + s.body_nconsts;
  std::vector<AType> carry(k0, in.end());
  std::vector<AType> cond_in(c0, b0), body_in(b0, k0);
  cond_in.insert(cond_in.end(), carry.begin(), carry.end());
  body_in.insert(body_in.end(), carry.begin(), carry.end());
  if (s.cond->in_types() != cond_in)
    throw_bad_input(cat("while: cond takes ", types_str(s.cond->in_types()), " but is given ", types_str(cond_in)),
                    "cond takes (cond_consts..., carry...)");
  if (s.cond->out_types() != std::vector<AType>{AType{{}, DType::pred}})
    throw_bad_input(cat("while: cond returns ", types_str(s.cond->out_types()), ", not one bool scalar"),
                    "cond_fun must return a scalar boolean, as lax.while_loop requires");
  if (s.body->in_types() != body_in)
    throw_bad_input(cat("while: body takes ", types_str(s.body->in_types()), " but is given ", types_str(body_in)),
                    "body takes (body_consts..., carry...)");
  if (s.body->out_types() != carry)
    throw_bad_input(cat("while: the carry enters as ", types_str(carry), " but the body returns ",
                        types_str(s.body->out_types())),
                    "the carry must keep its type across iterations");
  return carry;
}

std::vector<Tensor> while_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  return run_while_loop(in, p, ctx, [](const Tensor& pred) { return *static_cast<const uint8_t*>(pred.raw()) != 0; });
}
}  // namespace

std::vector<Tensor> run_while_loop(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx,
                                   const std::function<bool(const Tensor&)>& holds) {
  WhileSig s = signature(p);
  const size_t nc = size_t(s.cond_nconsts), nb = size_t(s.body_nconsts);
  std::vector<Tensor> carry(in.begin() + long(nc + nb), in.end());
  for (int64_t it = 0;; ++it) {
    std::vector<Tensor> cargs(in.begin(), in.begin() + long(nc));
    cargs.insert(cargs.end(), carry.begin(), carry.end());
    if (!holds(ctx.run_program(*s.cond, cargs).at(0))) return carry;
    if (it == kWhileMaxIterations)
      throw_bad_input(cat("while: the predicate still holds after ", kWhileMaxIterations, " iterations"),
                      "check that cond_fun becomes false for these inputs (a loop JAX would not leave either)");
    std::vector<Tensor> bargs(in.begin() + long(nc), in.begin() + long(nc + nb));
    bargs.insert(bargs.end(), carry.begin(), carry.end());
    carry = ctx.run_program(*s.body, bargs);
  }
}

std::vector<Value> while_loop(const Program& cond, const Program& body, const std::vector<Value>& cond_consts,
                              const std::vector<Value>& body_consts, const std::vector<Value>& init) {
  std::vector<Value> in = cond_consts;
  in.insert(in.end(), body_consts.begin(), body_consts.end());
  in.insert(in.end(), init.begin(), init.end());
  Builder* b = nullptr;
  for (const Value& v : in)
    if (v.builder()) b = v.builder();
  if (!b) throw_bad_input("while_loop with no traced operands", "start from a Builder input");
  return b->bind("while", in,
                 {{"cond", std::make_shared<const Program>(cond)},
                  {"body", std::make_shared<const Program>(body)},
                  {"cond_nconsts", int64_t(cond_consts.size())},
                  {"body_nconsts", int64_t(body_consts.size())}});
}

void register_while_primitive() {
  register_primitive(
      primitive_of("while", kControlFlow, {"cond", "body", "cond_nconsts", "body_nconsts"}, while_shape, while_cpu));
}

}  // namespace tandem
