// Reference rules of the bool / integer-valued primitives (not, and, or, xor, reduce_and,
// reduce_or, argmax, argmin), of round, and of reduce_prod. All but reduce_prod have no
// derivative (JAX's defjvp_zero): the tape records their value as a constant, so no cotangent
// flows back through them, as through compare's.
#include "bridge/reference_rules.h"

namespace tandem {
namespace {
using ref::Array;

// f(params, operand values) -> the one output; the tape keeps it as a constant.
template <class F>
ReferenceRule no_gradient(F f) {
  return ReferenceRule{
      [f](const Eqn& e, const std::vector<Array>& in, const RefEvalContext&) {
        return std::vector<Array>{f(e.params, in)};
      },
      [f](const Eqn& e, const std::vector<ref::Tape::Id>& in, const RefTapeContext& ctx) {
        std::vector<Array> values;
        for (ref::Tape::Id id : in) values.push_back(ctx.tape.value(id));
        return std::vector<ref::Tape::Id>{ctx.tape.constant(f(e.params, values))};
      }};
}

// The params' axes, negative ones counted from the end of x's rank (as the engine takes them).
std::vector<int64_t> axes_of(const Params& p, const Array& x) {
  std::vector<int64_t> a = p.get_ints("axes");
  for (int64_t& v : a)
    if (v < 0) v += int64_t(x.shape.size());
  return a;
}

int64_t one_axis(const Params& p, const Array& x) {
  const std::vector<int64_t> a = axes_of(p, x);
  if (a.size() != 1) throw_bad_input(cat("argmax/argmin take one axis, got ", a.size()));
  return a[0];
}
}  // namespace

void add_logical_reference_rules(std::map<std::string, ReferenceRule>& t) {
  t["not"] = no_gradient([](const Params&, const std::vector<Array>& in) { return ref::bitwise("not", in[0], in[0]); });
  for (const char* op : {"and", "or", "xor"})
    t[op] = no_gradient([op](const Params&, const std::vector<Array>& in) { return ref::bitwise(op, in[0], in[1]); });
  t["round"] = no_gradient([](const Params& p, const std::vector<Array>& in) {
    return ref::round(in[0], p.get_string("rounding_method", "AWAY_FROM_ZERO"));
  });
  t["reduce_and"] = no_gradient([](const Params& p, const std::vector<Array>& in) {
    return ref::reduce_and(in[0], axes_of(p, in[0]));
  });
  t["reduce_or"] = no_gradient([](const Params& p, const std::vector<Array>& in) {
    return ref::reduce_or(in[0], axes_of(p, in[0]));
  });
  t["argmax"] = no_gradient([](const Params& p, const std::vector<Array>& in) {
    return ref::argmax(in[0], one_axis(p, in[0]), p.get_dtype("index_dtype"));
  });
  t["argmin"] = no_gradient([](const Params& p, const std::vector<Array>& in) {
    return ref::argmin(in[0], one_axis(p, in[0]), p.get_dtype("index_dtype"));
  });
  t["reduce_prod"] = ReferenceRule{
      [](const Eqn& e, const std::vector<Array>& in, const RefEvalContext&) {
        return std::vector<Array>{ref::reduce_prod(in[0], axes_of(e.params, in[0]))};
      },
      [](const Eqn& e, const std::vector<ref::Tape::Id>& in, const RefTapeContext& ctx) {
        return std::vector<ref::Tape::Id>{ctx.tape.reduce_prod(in[0], axes_of(e.params, ctx.tape.value(in[0])))};
      }};
}

}  // namespace tandem
