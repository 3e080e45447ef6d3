// Generator rows of the elementwise primitives: every kElementwiseUnary / kElementwiseBinary
// primitive by its trait (a new one is fuzzed with no edit here), then compare, select,
// convert_element_type, integer_pow and is_finite.
#include <set>

#include "engine/ir/primitive.h"
#include "suites/program_fuzz/gen_rows.h"

namespace tandem::fuzz {
namespace {

// Integer division by zero and overflowing products are undefined in XLA: integers take
// only the binary ops whose results stay exact at the sizes and values the fuzzer makes.
// pow takes floats only.
const std::set<std::string> kNotForIntegers = {"div", "mul", "pow"};

GenRow unary_row(const std::string& name) {
  return {[name](GenState& s) {
    auto x = s.pick_float();
    if (!x) return false;
    Value in = *x;
    // Half the time keep the operand positive (log, sqrt and friends then see their domain;
    // the other half they see it all, NaNs included, which both sides must agree on).
    if (s.rng.chance(0.5)) in = s.b.bind1("max", {in, s.b.literal(0.25, in.dtype())});
    s.keep(s.b.bind1(name, {in}));
    return true;
  }};
}

GenRow binary_row(const std::string& name) {
  return {[name](GenState& s) {
    const bool ints_ok = !kNotForIntegers.count(name);
    auto a = s.pick([&](const Value& v) { return is_floating(v.dtype()) || (ints_ok && v.dtype() == DType::i32); });
    if (!a) return false;
    // A rank-0 operand broadcasts (either side); otherwise the shapes match.
    AType bt = a->type();
    if (s.rng.chance(0.25)) bt.shape = {};
    Value b = s.operand(bt);
    const bool swap = s.rng.chance(0.5);
    std::vector<Value> ops = swap ? std::vector<Value>{b, *a} : std::vector<Value>{*a, b};
    // pow's base stays positive: at x = 0 its value is finite but its derivative NaN (JAX's
    // y·x^(y-1)), which a zero cotangent through an unused scan carry turns into NaN in the
    // engine (as in JAX) where the reference's tape, never visiting that path, gives 0.
    // Its exponent stays in [-3, 3], as integer_pow's row draws them: x^22 overflows a square
    // in f32 that the f64 reference holds (div's vjp), a narrow backward the oracle cannot model.
    if (name == "pow") {
      ops[0] = s.b.bind1("max", {ops[0], s.b.literal(0.25, ops[0].dtype())});
      ops[1] = s.b.bind1("max", {s.b.bind1("min", {ops[1], s.b.literal(3, ops[1].dtype())}), s.b.literal(-3, ops[1].dtype())});
    }
    return try_emit([&] { s.keep(s.b.bind1(name, ops)); });
  }, 3};
}

const std::vector<std::string> kDirections = {"eq", "ne", "lt", "le", "gt", "ge"};

bool emit_compare(GenState& s) {
  auto a = s.pick([](const Value& v) { return v.dtype() != DType::pred; });
  if (!a) return false;
  Value b = s.operand(a->type());
  s.keep(compare(*a, b, s.rng.pick(kDirections)));
  return true;
}

bool emit_select(GenState& s) {
  auto x = s.pick([](const Value& v) { return true; });
  if (!x) return false;
  AType pt{s.rng.chance(0.3) ? Shape{} : x->shape(), DType::pred};
  Value pred = s.operand(pt);
  if (pred.atom().is_literal() && s.rng.chance(0.5)) pred = s.fit(*x, pt);
  Value other = s.operand(x->type());
  s.keep(s.b.bind1("select", {pred, *x, other}));
  return true;
}

bool emit_convert(GenState& s) {
  auto x = s.pick([](const Value&) { return true; });
  if (!x) return false;
  s.keep(convert_element_type(*x, s.random_dtype()));
  return true;
}

// is_finite of any floating value (NaN and Inf arise downstream of log, div, ...).
bool emit_is_finite(GenState& s) {
  auto x = s.pick_float();
  if (!x) return false;
  s.keep(is_finite(*x));
  return true;
}

bool emit_integer_pow(GenState& s) {
  auto x = s.pick_float();
  if (!x) return false;
  s.keep(integer_pow(*x, s.rng.in(-2, 3)));
  return true;
}

}  // namespace

void add_elementwise_rows(GenTable& t) {
  for (const std::string& name : primitive_names()) {
    const Primitive& p = primitive(name);
    if (p.has(kElementwiseUnary)) t.rows[name] = unary_row(name);
    if (p.has(kElementwiseBinary)) t.rows[name] = binary_row(name);
  }
  t.rows["compare"] = {emit_compare};
  t.rows["select"] = {emit_select};
  t.rows["convert_element_type"] = {emit_convert};
  t.rows["integer_pow"] = {emit_integer_pow};
  t.rows["is_finite"] = {emit_is_finite};
}

}  // namespace tandem::fuzz
