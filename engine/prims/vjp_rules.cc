// Reverse-mode rules for the elementwise and layout primitives (the Primitive::vjp table; the unary and binary ones are
// rows of unary_ops.def and binary_ops.def); slicing, reductions by max and the LSTM are in vjp_rules_indexing.cc,
// dot_general in vjp_rules_dot.cc (scan and checkpoint are linearized by the vjp pass itself). Each rule reads only the
// primals its derivative needs, so the remat policy decides what is actually saved. Rules read their own output only
// where JAX's do too (exp, tanh, logistic, sqrt, reduce_max: the output is the cheaper residual there); div reads x and
// y. Scalar (rank-0) operands of binary ops get their cotangent summed.
#include "engine/core/error.h"
#include "engine/ir/builder_logical.h"
#include "engine/ir/vjp_args.h"
#include "engine/prims/register_all.h"

namespace tandem {
namespace {
using Cts = std::vector<std::optional<Value>>;

Value lit(const VjpArgs& a, double v, DType d) { return a.builder->literal(v, d); }
// Sums a cotangent down to a rank-0 operand that was broadcast against a tensor.
Value unbroadcast(Value g, const AType& t) {
  if (t.rank() == 0 && g.rank() > 0) {
    std::vector<int64_t> all;
    for (int i = 0; i < g.rank(); ++i) all.push_back(i);
    return reduce_sum(g, all);
  }
  return g;
}
std::optional<Value> opt_if(bool want, const std::function<Value()>& f) {
  return want ? std::optional<Value>(f()) : std::nullopt;
}
void set(const char* name, VjpRule r) { mutable_primitive(name).vjp = std::move(r); }
// max/min: the operand equal to the result takes the cotangent, ties split it in half, and the cotangent is multiplied
// by that 1, 1/2 or 0 (JAX's _balanced_eq): so a NaN result (a NaN operand) gives neither operand anything, and a NaN
// or infinite cotangent gives both NaN, as in JAX. A select would drop the cotangent's NaN.
Cts balanced_eq_cts(const VjpArgs& a) {
  if (!a.wants(0) && !a.wants(1)) return Cts{std::nullopt, std::nullopt};
  Value x = a.primal_in(0), y = a.primal_in(1), r = a.primal_out(0), g = a.ct(0);
  Value z = zeros(*a.builder, a.out_types[0]), half = z + 0.5, one = z + 1.0;
  auto share = [&](const Value& self, const Value& other) {
    return select(compare(self, r, "eq"), select(compare(other, r, "eq"), half, one), z);
  };
  Value ga = g * share(x, y);
  Value gb = g * share(y, x);
  return Cts{opt_if(a.wants(0), [&] { return unbroadcast(ga, a.in_types[0]); }),
             opt_if(a.wants(1), [&] { return unbroadcast(gb, a.in_types[1]); })};
}

// The rows of unary_ops.def and binary_ops.def: a unary rule runs only for a wanted operand.
void table_rules() {
#define TANDEM_UNARY(name, float_only, host_f64, host_f32, host_f32_array, device_f32, device_f64, ...) \
  set(#name, [](const VjpArgs& a, const Params&) {                                                     \
    if (!a.wants(0)) return Cts{std::nullopt};                                                         \
    auto rule = [&a](Value g) -> std::optional<Value> { __VA_ARGS__ };                                 \
    return Cts{rule(a.ct(0))};                                                                         \
  });
#include "engine/prims/unary_ops.def"
#define TANDEM_BINARY(name, float_only, host, device, ...) set(#name, [](const VjpArgs& a, const Params&) { __VA_ARGS__ });
#include "engine/prims/binary_ops.def"
}

// The elementwise primitives outside the tables: their params or operands differ.
void elementwise_rules() {
  // checkpoint_name is the identity (an annotation for the remat policy).
  set("checkpoint_name", [](const VjpArgs& a, const Params&) {
    return Cts{opt_if(a.wants(0), [&] { return a.ct(0); })};
  });
  set("integer_pow", [](const VjpArgs& a, const Params& p) {
    int64_t n = p.get_int("y");
    return Cts{opt_if(a.wants(0), [&] {
      Value g = a.ct(0);
      if (n == 0) return zeros(*a.builder, a.in_types[0]);
      if (n == 1) return g;
      Value x = a.primal_in(0);
      return g * ((n == 2 ? x : integer_pow(x, n - 1)) * double(n));
    })};
  });
  set("select", [](const VjpArgs& a, const Params&) {
    if (!a.wants(1) && !a.wants(2)) return Cts{std::nullopt, std::nullopt, std::nullopt};
    Value p = a.primal_in(0), g = a.ct(0), z = zeros(*a.builder, a.out_types[0]);
    return Cts{std::nullopt, opt_if(a.wants(1), [&] { return select(p, g, z); }),
               opt_if(a.wants(2), [&] { return select(p, z, g); })};
  });
  set("convert_element_type", [](const VjpArgs& a, const Params&) {
    bool ok = a.wants(0) && is_floating(a.out_types[0].dtype);
    return Cts{opt_if(ok, [&] { return convert_element_type(a.ct(0), a.in_types[0].dtype); })};
  });
}

void structure_rules() {
  set("broadcast_in_dim", [](const VjpArgs& a, const Params& p) {
    return Cts{opt_if(a.wants(0), [&] {
      const AType& x = a.in_types[0];
      Shape shape = p.get_ints("shape");
      auto dims = p.get_ints("broadcast_dimensions");
      std::vector<int64_t> axes;
      std::vector<bool> kept(shape.size(), false);
      for (size_t i = 0; i < dims.size(); ++i) kept[size_t(dims[i])] = x.shape[i] == shape[size_t(dims[i])];
      for (size_t d = 0; d < shape.size(); ++d)
        if (!kept[d]) axes.push_back(int64_t(d));
      Value g = a.ct(0);
      if (!axes.empty()) g = reduce_sum(g, axes);
      return g.shape() == x.shape ? g : reshape(g, x.shape);
    })};
  });
  set("reshape", [](const VjpArgs& a, const Params&) {
    return Cts{opt_if(a.wants(0), [&] { return reshape(a.ct(0), a.in_types[0].shape); })};
  });
  set("transpose", [](const VjpArgs& a, const Params& p) {
    auto perm = p.get_ints("permutation");
    std::vector<int64_t> inv(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inv[size_t(perm[i])] = int64_t(i);
    return Cts{opt_if(a.wants(0), [&] { return transpose(a.ct(0), inv); })};
  });
  set("concatenate", [](const VjpArgs& a, const Params& p) {
    Cts r;
    Value g = a.ct(0);
    int axis = normalize_axis(p.get_int("dimension"), g.rank(), "concatenate");
    int64_t off = 0;
    for (size_t i = 0; i < a.in_types.size(); ++i) {
      const Shape& s = a.in_types[i].shape;
      r.push_back(opt_if(a.wants(i), [&] {
        std::vector<int64_t> start(s.size(), 0), limit = g.shape();
        start[size_t(axis)] = off;
        limit[size_t(axis)] = off + s[size_t(axis)];
        return slice(g, start, limit);
      }));
      off += s[size_t(axis)];
    }
    return r;
  });
  set("reduce_sum", [](const VjpArgs& a, const Params& p) {
    return Cts{opt_if(a.wants(0), [&] {
      const AType& x = a.in_types[0];
      std::vector<bool> red(size_t(x.rank()), false);
      for (int64_t ax : p.get_ints("axes")) red[size_t(normalize_axis(ax, x.rank(), "reduce_sum"))] = true;
      std::vector<int64_t> kept;
      for (int d = 0; d < x.rank(); ++d)
        if (!red[size_t(d)]) kept.push_back(d);
      return broadcast_in_dim(a.ct(0), x.shape, kept);
    })};
  });
}

// ---- not, and, or, xor, round, reduce_and/or, argmax/argmin, reduce_prod -------------------
// Bool or integer results, and round: no derivative (JAX's defjvp_zero): no cotangent at all. reduce_prod: JAX's rule,
// the transpose of a pairwise product tree over the reduced elements (moved to the front and flattened to n, halved
// level by level, an odd half padded with 1): each level's cotangent is the next level's times the other half. No
// division, so a zero operand gets the product of the others and two zeros give zeros, as in JAX.
Cts reduce_prod_rule(const VjpArgs& a, const Params& p) {
  if (!a.wants(0)) return Cts{std::nullopt};
  const AType& xt = a.in_types[0];
  std::vector<bool> red(size_t(xt.rank()), false);
  for (int64_t ax : p.get_ints("axes")) red[size_t(normalize_axis(ax, xt.rank(), "reduce_prod"))] = true;
  std::vector<int64_t> perm, inv(size_t(xt.rank()));
  Shape flat{1}, moved;
  for (int pass = 0; pass < 2; ++pass)  // the reduced axes first, then the kept ones
    for (int d = 0; d < xt.rank(); ++d)
      if (red[size_t(d)] == (pass == 0)) {
        perm.push_back(d), moved.push_back(xt.shape[size_t(d)]);
        if (pass == 0) flat[0] *= xt.shape[size_t(d)];
        else flat.push_back(xt.shape[size_t(d)]);
      }
  if (flat[0] == 0) return Cts{zeros(*a.builder, xt)};
  for (size_t i = 0; i < perm.size(); ++i) inv[size_t(perm[i])] = int64_t(i);
  auto rows = [](Value v, int64_t lo, int64_t hi) {
    std::vector<int64_t> start(size_t(v.rank()), 0), limit = v.shape();
    start[0] = lo, limit[0] = hi;
    return slice(v, start, limit);
  };
  Value level = reshape(transpose(a.primal_in(0), perm), flat);
  std::vector<std::pair<Value, Value>> halves;  // each level's (first half, padded second half)
  while (level.shape()[0] > 1) {
    const int64_t m = level.shape()[0], m1 = (m + 1) / 2;
    Value lo = rows(level, 0, m1), hi = rows(level, m1, m);
    if (m - m1 != m1) {
      std::vector<PadDim> cfg(size_t(hi.rank()));
      cfg[0].high = 1;
      hi = pad(hi, a.builder->literal(1.0, xt.dtype), cfg);
    }
    halves.emplace_back(lo, hi);
    level = lo * hi;
  }
  Shape one_row = flat;
  one_row[0] = 1;
  Value g = reshape(a.ct(0), one_row);
  for (size_t k = halves.size(); k-- > 0;) {
    const auto& [lo, hi] = halves[k];
    const int64_t m = k == 0 ? flat[0] : halves[k - 1].first.shape()[0];
    g = concatenate({g * hi, rows(g * lo, 0, m - lo.shape()[0])}, 0);
  }
  return Cts{transpose(reshape(g, moved), inv)};
}

void no_derivative_rules() {
  for (const char* n : {"not", "and", "or", "xor", "round", "reduce_and", "reduce_or", "argmax", "argmin"})
    set(n, [](const VjpArgs& a, const Params&) { return Cts(a.in_types.size()); });
  set("reduce_prod", reduce_prod_rule);
}

// while: a trip count that depends on the data has no reverse mode (JAX's while_loop has no
// transpose rule either). Reached only when a cotangent flows into the loop, the refusal is
// "unsupported": a program check reports its vjp cases as not applicable, with this reason.
void control_rules() {
  set("while", [](const VjpArgs&, const Params&) -> Cts {
    throw_unsupported("vjp: reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
                      "dynamic start/stop values (the while primitive): its trip count depends on the data",
                      "use lax.scan, or lax.fori_loop with static (Python int) bounds, which lowers to a scan; "
                      "forward evaluation and vmap of the loop work");
  });
}
}  // namespace

void register_dot_vjp_rules();       // vjp_rules_dot.cc
void register_indexing_vjp_rules();  // vjp_rules_indexing.cc
void register_conv_vjp_rules();      // vjp_rules_conv.cc
void register_gather_sort_vjp_rules();  // vjp_rules_gather_sort.cc
void register_window_vjp_rules();       // vjp_rules_window.cc

void register_vjp_rules() {
  table_rules();
  elementwise_rules();
  structure_rules();
  control_rules();
  no_derivative_rules();
  register_dot_vjp_rules();
  register_indexing_vjp_rules();
  register_conv_vjp_rules();
  register_gather_sort_vjp_rules();
  register_window_vjp_rules();
}

}  // namespace tandem
