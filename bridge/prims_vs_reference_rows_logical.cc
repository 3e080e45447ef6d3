// The engine-vs-reference rows (prims_vs_reference_rows.h) of lax's bitwise ops (bool and
// i32, a rank-0 operand broadcasting), rem on integers (a zero divisor, INT32_MIN rem -1),
// pow at its edges (x = 0, y = 0, negative bases), round's half-way cases under both
// methods, reduce_prod (zeros in a row, for its vjp; i32 wrapping; an empty product),
// reduce_and / reduce_or and argmax / argmin (NaN, ties, -0.0, every axis). The generic
// float rows of rem and pow come from their trait (prims_vs_reference_test.cc).
#include <cmath>
#include <limits>

#include "bridge/prims_vs_reference_rows.h"
#include "engine/core/error.h"
#include "engine/ir/builder_logical.h"

namespace tandem {
namespace {
using V = std::vector<Value>;
using Add = std::function<void(const std::string&, Row)>;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::vector<double> kInts = {5, -5, 7, -2147483648.0, 12, 0, -1, 2147483647.0};
const std::vector<double> kDivisors = {0, 3, -3, -1, 5, 7, 0, 2};
const std::vector<double> kBoolsA = {0, 0, 1, 1, 1, 0, 1, 0}, kBoolsB = {0, 1, 0, 1, 1, 1, 0, 0};

Row exact(std::string name, std::vector<AType> in, std::vector<std::vector<double>> values,
          std::function<std::vector<Value>(Builder&, const V&)> fn) {
  Row r{std::move(name), std::move(in), std::move(fn)};
  r.ulps = 0, r.grad_ulps = 0, r.values = std::move(values);
  return r;
}

void bitwise_rows(const Add& add) {
  using Op = Value (*)(Value, Value);
  const std::pair<const char*, Op> ops[] = {{"and", bitwise_and}, {"or", bitwise_or}, {"xor", bitwise_xor}};
  for (const auto& [name, op] : ops) {
    add(name, exact(cat(name, "/i32"), {AType{{8}, DType::i32}, AType{{8}, DType::i32}}, {kInts, kDivisors},
                    [op = op](Builder& b, const V& a) { return V{op(a[0], a[1]), op(a[0], b.literal(6, DType::i32))}; }));
    add(name, exact(cat(name, "/bool"), {AType{{2, 4}, DType::pred}, AType{{2, 4}, DType::pred}}, {kBoolsA, kBoolsB},
                    [op = op](Builder& b, const V& a) { return V{op(a[0], a[1]), op(b.literal(1, DType::pred), a[1])}; }));
  }
  add("not", exact("not/i32_bool", {AType{{8}, DType::i32}, AType{{2, 4}, DType::pred}}, {kInts, kBoolsA},
                   [](Builder&, const V& a) { return V{bitwise_not(a[0]), bitwise_not(a[1]), bitwise_not(bitwise_not(a[1]))}; }));
  // jnp.isnan(x) | jnp.isfinite(x) and x % y's mask, as JAX lowers them: from floats.
  add("or", Row{"or/isnan_isfinite", {AType{{3, 5}, DType::f32}}, [](Builder&, const V& a) {
                  Value x = log(a[0]);
                  return V{bitwise_or(compare(x, x, "ne"), is_finite(x)), bitwise_and(compare(x, x, "eq"), is_finite(x))}; }});
  add("rem", exact("rem/i32_edges", {AType{{8}, DType::i32}, AType{{8}, DType::i32}}, {kInts, kDivisors},
                   [](Builder& b, const V& a) { return V{rem(a[0], a[1]), rem(a[0], b.literal(-3, DType::i32))}; }));
}

void float_rows(const Add& add) {
  const std::vector<double> halves = {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.4, 0.4, 3.7, -3.7, 0, 4194304.5};
  for (DType t : {DType::f64, DType::f32, DType::bf16, DType::f16})
    add("round", exact(cat("round/", dtype_name(t)), {AType{{12}, t}}, {halves}, [](Builder&, const V& a) {
                   return V{round(a[0]), round(a[0], "TO_NEAREST_EVEN")}; }));
  for (DType t : {DType::f64, DType::f32}) {
    const std::string d(dtype_name(t));
    Row edges{"pow/edges/" + d, {AType{{8}, t}, AType{{8}, t}}, [](Builder&, const V& a) { return V{pow(a[0], a[1])}; }};
    edges.values = {{0, 0, 2, 0.5, 4, 1.5, -2, -8}, {0, 2, 3, -1, 0.5, 2.5, 2, 1.0 / 3}};
    add("pow", edges);
    Row rem_edges{"rem/edges/" + d, {AType{{6}, t}, AType{{6}, t}}, [](Builder&, const V& a) { return V{rem(a[0], a[1])}; }};
    rem_edges.values = {{5.5, -5.5, 1.0, 7.25, -0.0, 3}, {2, 2, 0, -2.5, 3, 0.75}};
    add("rem", rem_edges);
    add("reduce_prod", Row{"reduce_prod/" + d, {AType{{3, 4, 5}, t}}, [](Builder&, const V& a) {
                             return V{reduce_prod(a[0], {0, 2}), reduce_prod(a[0], {-1}), reduce_prod(a[0], {}),
                                      reduce_prod(a[0], {0, 1, 2})}; }, 0.5, 1.5});
    Row zeros{"reduce_prod/zeros/" + d, {AType{{3, 4}, t}}, [](Builder&, const V& a) {
                return V{reduce_prod(a[0], {1}), reduce_prod(a[0], {0})}; }};
    zeros.values = {{1.5, 0, 2, -1, 0, 3, 0, 0.5, 2, -2, 0.25, 4}};  // one zero, two zeros, none
    add("reduce_prod", zeros);
  }
  add("reduce_prod", Row{"reduce_prod/bf16_zero_size", {AType{{0, 3}, DType::bf16}, AType{{3, 4}, DType::bf16}},
                         [](Builder&, const V& a) { return V{reduce_prod(a[0], {0}), reduce_prod(a[1], {1})}; }, 0.5, 1.5, 8});
  add("reduce_prod", exact("reduce_prod/i32_wraps", {AType{{2, 4}, DType::i32}}, {kInts}, [](Builder&, const V& a) {
                             return V{reduce_prod(a[0], {1}), reduce_prod(a[0], {0})}; }));
}

void reduction_rows(const Add& add) {
  using AxesOp = Value (*)(Value, const std::vector<int64_t>&);
  using ArgOp = Value (*)(Value, int64_t);
  for (auto [name, f] : {std::pair<const char*, AxesOp>{"reduce_and", reduce_and}, {"reduce_or", reduce_or}}) {
    add(name, exact(cat(name, "/bool"), {AType{{2, 4}, DType::pred}, AType{{0, 3}, DType::pred}}, {kBoolsA, {}},
                    [f = f](Builder&, const V& a) { return V{f(a[0], {1}), f(a[0], {0, 1}), f(a[0], {}), f(a[1], {0})}; }));
    add(name, exact(cat(name, "/i32"), {AType{{2, 4}, DType::i32}}, {kInts},
                    [f = f](Builder&, const V& a) { return V{f(a[0], {-1}), f(a[0], {0})}; }));
  }
  // Rows: a tie, NaNs (the first wins), -0.0 against 0.0, all equal.
  const std::vector<double> v = {1, 3, 3, 2, kNaN, 1, kNaN, 5, -0.0, 0.0, -1, -1, 7, 7, 7, 7};
  for (DType t : {DType::f64, DType::f32, DType::bf16, DType::i32}) {
    std::vector<double> vt = v;
    if (t == DType::i32) vt[4] = vt[6] = -9;
    for (auto [name, f] : {std::pair<const char*, ArgOp>{"argmax", argmax}, {"argmin", argmin}})
      add(name, exact(cat(name, "/", dtype_name(t)), {AType{{4, 4}, t}, AType{{2, 1, 3}, t}}, {vt, {1, 2, 3, 3, 2, 1}},
                      [f = f](Builder&, const V& a) { return V{f(a[0], 1), f(a[0], 0), f(a[0], -1), f(a[1], 1), f(a[1], 2)}; }));
  }
}
}  // namespace

void add_logical_rows(const Add& add) {
  bitwise_rows(add);
  float_rows(add);
  reduction_rows(add);
}

}  // namespace tandem
