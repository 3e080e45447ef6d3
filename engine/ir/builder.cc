// Builder implementation: binds equations, running each primitive's shape rule eagerly.
#include "engine/ir/builder.h"

#include "engine/core/error.h"

namespace tandem {

const Shape& Value::shape() const {
  static const Shape kScalar;
  return atom_.is_literal() ? kScalar : atom_.var->type.shape;
}

Value Builder::input(const Shape& shape, DType dtype) {
  Var v = new_var(AType{shape, dtype});
  inputs_.push_back(v);
  return Value(this, v);
}

Value Builder::literal(double v, DType dtype) { return Value(this, Literal{v, dtype}); }

std::vector<Value> Builder::bind(const std::string& name, const std::vector<Value>& in, Params params) {
  const Primitive& p = primitive(name);
  std::vector<AType> in_types;
  Eqn e;
  e.prim = &p;
  for (const Value& v : in) {
    if (v.builder() != this && v.builder() != nullptr)
      throw_bad_input(cat(name, ": operand traced by another builder"),
                      "build one program per Builder; pass values in as inputs");
    in_types.push_back(v.type());
    e.in.push_back(v.atom());
  }
  std::vector<AType> out_types = p.shape(in_types, params);
  std::vector<Value> outs;
  for (AType& t : out_types) {
    Var v = new_var(std::move(t));
    e.out.push_back(v);
    outs.emplace_back(this, v);
  }
  e.params = std::move(params);
  eqns_.push_back(std::move(e));
  return outs;
}

Value Builder::bind1(const std::string& prim, const std::vector<Value>& in, Params params) {
  return bind(prim, in, std::move(params)).at(0);
}

Program Builder::build(const std::vector<Value>& outputs) const {
  Program p;
  p.in_vars = inputs_;
  p.eqns = eqns_;
  for (const Value& v : outputs) p.out_vars.push_back(v.atom());
  return p;
}

Program trace(const std::vector<AType>& in_types,
              const std::function<std::vector<Value>(Builder&, const std::vector<Value>&)>& fn) {
  Builder b;
  std::vector<Value> ins;
  for (const AType& t : in_types) ins.push_back(b.input(t.shape, t.dtype));
  return b.build(fn(b, ins));
}

namespace {
Builder* builder_of(std::initializer_list<const Value*> vs) {
  for (const Value* v : vs)
    if (v->builder()) return v->builder();
  throw_bad_input("operation on literals only: no builder to record it", "start from a Builder input");
}
Value unary(const char* name, Value x, Params p = {}) {
  return builder_of({&x})->bind1(name, {x}, std::move(p));
}
Value binary(const char* name, Value a, Value b) {
  return builder_of({&a, &b})->bind1(name, {a, b});
}
Value lit_like(const Value& x, double v) { return Value(x.builder(), Literal{v, x.dtype()}); }
}  // namespace

Value neg(Value x) { return unary("neg", x); }
Value exp(Value x) { return unary("exp", x); }
Value log(Value x) { return unary("log", x); }
Value sin(Value x) { return unary("sin", x); }
Value cos(Value x) { return unary("cos", x); }
Value tanh(Value x) { return unary("tanh", x); }
Value logistic(Value x) { return unary("logistic", x); }
Value sqrt(Value x) { return unary("sqrt", x); }
Value integer_pow(Value x, int64_t y) { return unary("integer_pow", x, {{"y", y}}); }
Value abs(Value x) { return unary("abs", x); }
Value sign(Value x) { return unary("sign", x); }
Value rsqrt(Value x) { return unary("rsqrt", x); }
Value log1p(Value x) { return unary("log1p", x); }
Value erfc(Value x) { return unary("erfc", x); }
Value floor(Value x) { return unary("floor", x); }
Value is_finite(Value x) { return unary("is_finite", x); }
Value add(Value a, Value b) { return binary("add", a, b); }
Value sub(Value a, Value b) { return binary("sub", a, b); }
Value mul(Value a, Value b) { return binary("mul", a, b); }
Value div(Value a, Value b) { return binary("div", a, b); }
Value max(Value a, Value b) { return binary("max", a, b); }
Value min(Value a, Value b) { return binary("min", a, b); }
Value compare(Value a, Value b, const std::string& direction) {
  return builder_of({&a, &b})->bind1("compare", {a, b}, {{"direction", direction}});
}
Value select(Value p, Value t, Value f) {
  return builder_of({&p, &t, &f})->bind1("select", {p, t, f});
}
Value convert_element_type(Value x, DType to) {
  return unary("convert_element_type", x, {{"new_dtype", to}});
}

Value operator+(Value a, Value b) { return add(a, b); }
Value operator-(Value a, Value b) { return sub(a, b); }
Value operator*(Value a, Value b) { return mul(a, b); }
Value operator/(Value a, Value b) { return div(a, b); }
Value operator-(Value a) { return neg(a); }
Value operator+(Value a, double b) { return add(a, lit_like(a, b)); }
Value operator*(Value a, double b) { return mul(a, lit_like(a, b)); }
Value operator-(Value a, double b) { return sub(a, lit_like(a, b)); }
Value operator/(Value a, double b) { return div(a, lit_like(a, b)); }
Value operator*(double a, Value b) { return mul(lit_like(b, a), b); }

Value broadcast_in_dim(Value x, const Shape& shape, const std::vector<int64_t>& dims) {
  return unary("broadcast_in_dim", x, {{"shape", shape}, {"broadcast_dimensions", dims}});
}
Value reshape(Value x, const Shape& shape) { return unary("reshape", x, {{"new_sizes", shape}}); }
Value transpose(Value x, const std::vector<int64_t>& perm) {
  return unary("transpose", x, {{"permutation", perm}});
}
Value slice(Value x, const std::vector<int64_t>& start, const std::vector<int64_t>& limit,
            const std::vector<int64_t>& strides) {
  Params p{{"start_indices", start}, {"limit_indices", limit}};
  if (!strides.empty()) p.set("strides", strides);
  return unary("slice", x, std::move(p));
}
Value dynamic_slice(Value x, const std::vector<Value>& starts, const Shape& sizes) {
  std::vector<Value> in{x};
  in.insert(in.end(), starts.begin(), starts.end());
  return builder_of({&x})->bind1("dynamic_slice", in, {{"slice_sizes", sizes}});
}
Value dynamic_update_slice(Value x, Value update, const std::vector<Value>& starts) {
  std::vector<Value> in{x, update};
  in.insert(in.end(), starts.begin(), starts.end());
  return builder_of({&x, &update})->bind1("dynamic_update_slice", in);
}
Value concatenate(const std::vector<Value>& xs, int64_t axis) {
  if (xs.empty()) throw_bad_input("concatenate of zero operands", "pass at least one array");
  return builder_of({&xs[0]})->bind1("concatenate", xs, {{"dimension", axis}});
}
Value iota(Builder& b, DType dtype, const Shape& shape, int64_t dimension) {
  return b.bind1("iota", {}, {{"dtype", dtype}, {"shape", shape}, {"dimension", dimension}});
}
Value reduce_sum(Value x, const std::vector<int64_t>& axes) {
  return unary("reduce_sum", x, {{"axes", axes}});
}
Value reduce_max(Value x, const std::vector<int64_t>& axes) {
  return unary("reduce_max", x, {{"axes", axes}});
}
Value reduce_min(Value x, const std::vector<int64_t>& axes) {
  return unary("reduce_min", x, {{"axes", axes}});
}
Value rev(Value x, const std::vector<int64_t>& dimensions) { return unary("rev", x, {{"dimensions", dimensions}}); }
Value pad(Value x, Value padding_value, const std::vector<PadDim>& config) {
  std::vector<int64_t> flat;  // the padding_config param: triples flattened
  for (const PadDim& d : config) flat.insert(flat.end(), {d.low, d.high, d.interior});
  return builder_of({&x, &padding_value})->bind1("pad", {x, padding_value}, {{"padding_config", flat}});
}
Value cumsum(Value x, int64_t axis, bool reverse) {
  return unary("cumsum", x, {{"axis", axis}, {"reverse", reverse}});
}

Params dot_general_params(const DotDims& d, const std::string& precision, std::optional<DType> preferred,
                          std::optional<F8Operands> f8) {
  Params p{{"lhs_contracting_dimensions", d.lhs_contract},
           {"rhs_contracting_dimensions", d.rhs_contract},
           {"lhs_batch_dimensions", d.lhs_batch},
           {"rhs_batch_dimensions", d.rhs_batch},
           {"precision", precision}};
  if (preferred) p.set("preferred_element_type", *preferred);
  if (f8) {
    p.set("lhs_f8_format", std::string(f8_info(f8->lhs).name));
    p.set("rhs_f8_format", std::string(f8_info(f8->rhs).name));
  }
  return p;
}

Value dot_general(Value lhs, Value rhs, const DotDims& d, const std::string& precision,
                  std::optional<DType> preferred, std::optional<F8Operands> f8) {
  return builder_of({&lhs, &rhs})->bind1("dot_general", {lhs, rhs}, dot_general_params(d, precision, preferred, f8));
}

Value dot(Value lhs, Value rhs, const std::string& precision) {
  return dot_general(lhs, rhs, DotDims{{lhs.rank() - 1}, {0}, {}, {}}, precision);
}

std::vector<Value> scan(const Program& body, const std::vector<Value>& consts, const std::vector<Value>& init,
                        const std::vector<Value>& xs, int64_t length, bool reverse, int64_t unroll) {
  std::vector<Value> in = consts;
  in.insert(in.end(), init.begin(), init.end());
  in.insert(in.end(), xs.begin(), xs.end());
  Builder* b = nullptr;
  for (const Value& v : in)
    if (v.builder()) b = v.builder();
  if (!b) throw_bad_input("scan with no traced operands", "start from a Builder input");
  return b->bind("scan", in,
                 {{"body", std::make_shared<const Program>(body)},
                  {"num_consts", int64_t(consts.size())},
                  {"num_carry", int64_t(init.size())},
                  {"length", length},
                  {"reverse", reverse},
                  {"unroll", unroll}});
}

}  // namespace tandem
