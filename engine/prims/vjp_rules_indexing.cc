// Reverse-mode rules for the indexing, reduction and non-differentiable primitives:
// dynamic_slice, dynamic_update_slice, strided slice, reduce_max / reduce_min, compare,
// is_finite, iota, rev, pad, cumsum, and the LSTM primitives (lstm_fwd's cotangents are lstm_bwd on its reserve; lstm_bwd is first-order only).
// Start indices are i32 operands: they get no cotangent, and the rules re-read them so that
// the transposed op clamps them exactly as the primal op did.
#include "engine/core/error.h"
#include "engine/ir/vjp_args.h"

namespace tandem {
namespace {
using Cts = std::vector<std::optional<Value>>;

void set(const char* name, VjpRule r) { mutable_primitive(name).vjp = std::move(r); }

std::vector<Value> start_operands(const VjpArgs& a, size_t first) {
  std::vector<Value> s;
  for (size_t i = first; i < a.in_types.size(); ++i) s.push_back(a.primal_in(i));
  return s;
}

// The cotangent of a strided slice's operand: g spread out to every stride-th position (zeros between), cut to the
// sliced extent, then written into zeros at the start indices. Interleaving uses concatenate + reshape: [.., m, ..] ->
// [.., m, 1, ..] ++ zeros [.., m, s-1, ..] along the new axis -> [.., m*s, ..].
Value unslice(const VjpArgs& a, Value g, const std::vector<int64_t>& start,
              const std::vector<int64_t>& limit, const std::vector<int64_t>& strides) {
  const AType& x = a.in_types[0];
  for (size_t d = 0; d < strides.size(); ++d) {
    int64_t s = strides[d];
    if (s == 1) continue;
    Shape sh = g.shape();
    int64_t m = sh[d];
    Shape with_axis = sh;
    with_axis.insert(with_axis.begin() + int64_t(d) + 1, 1);
    Shape pad_shape = with_axis;
    pad_shape[d + 1] = s - 1;
    Value spread = concatenate({reshape(g, with_axis), zeros(*a.builder, AType{pad_shape, x.dtype})}, int64_t(d) + 1);
    Shape flat = sh;
    flat[d] = m * s;
    spread = reshape(spread, flat);
    std::vector<int64_t> lo(sh.size(), 0), hi = flat;
    hi[d] = limit[d] - start[d];  // <= m*s: positions after the last taken one are zeros
    g = slice(spread, lo, hi);
  }
  std::vector<Value> starts;
  for (int64_t s : start) starts.push_back(a.builder->literal(double(s), DType::i32));
  if (g.shape() == x.shape) return g;
  return dynamic_update_slice(zeros(*a.builder, x), g, starts);
}

// reduce_max / reduce_min: the cotangent goes to the positions equal to the result, split
// evenly among ties (JAX's reduce_chooser_jvp_rule: location indicators divided by their count).
VjpRule chooser_rule(const char* name) {
  return [name](const VjpArgs& a, const Params& p) {
    Cts r(1);
    if (!a.wants(0)) return r;
    const AType& x = a.in_types[0];
    std::vector<bool> red(size_t(x.rank()), false);
    for (int64_t ax : p.get_ints("axes")) red[size_t(normalize_axis(ax, x.rank(), name))] = true;
    std::vector<int64_t> kept, reduced;
    for (int d = 0; d < x.rank(); ++d) (red[size_t(d)] ? reduced : kept).push_back(d);
    Value xv = a.primal_in(0);
    Value y = broadcast_in_dim(a.primal_out(0), x.shape, kept);
    Value eq = compare(xv, y, "eq");
    Value n = broadcast_in_dim(reduce_sum(convert_element_type(eq, x.dtype), reduced), x.shape, kept);
    // A selection, not a product with the 0/1 indicator: where no position equals the result
    // (a NaN one) the share is g/0, and XLA, which rewrites JAX's multiply by a converted
    // predicate into this select, gives 0 there, not 0·inf = NaN.
    r[0] = select(eq, broadcast_in_dim(a.ct(0), x.shape, kept) / n, zeros(*a.builder, x));
    return r;
  };
}

void indexing_rules() {
  set("slice", [](const VjpArgs& a, const Params& p) {
    return Cts{a.wants(0) ? std::optional<Value>(unslice(
                                a, a.ct(0), p.get_ints("start_indices"), p.get_ints("limit_indices"),
                                p.has("strides") ? p.get_ints("strides")
                                                 : std::vector<int64_t>(size_t(a.in_types[0].rank()), 1)))
                          : std::nullopt};
  });
  // dynamic_slice(x, starts...) -> window: the window's cotangent written back into zeros.
  set("dynamic_slice", [](const VjpArgs& a, const Params&) {
    Cts r(a.in_types.size());
    if (a.wants(0)) r[0] = dynamic_update_slice(zeros(*a.builder, a.in_types[0]), a.ct(0), start_operands(a, 1));
    return r;
  });
  // dynamic_update_slice(x, u, starts...): x's cotangent is g with the window zeroed, u's is the window of g.
  set("dynamic_update_slice", [](const VjpArgs& a, const Params&) {
    Cts r(a.in_types.size());
    if (!a.wants(0) && !a.wants(1)) return r;
    std::vector<Value> st = start_operands(a, 2);
    Value g = a.ct(0);
    if (a.wants(0)) r[0] = dynamic_update_slice(g, zeros(*a.builder, a.in_types[1]), st);
    if (a.wants(1)) r[1] = dynamic_slice(g, st, a.in_types[1].shape);
    return r;
  });
  set("reduce_max", chooser_rule("reduce_max"));
  set("reduce_min", chooser_rule("reduce_min"));
  // Non-differentiable: a bool result, or no operands at all.
  set("compare", [](const VjpArgs&, const Params&) { return Cts(2); });
  set("is_finite", [](const VjpArgs&, const Params&) { return Cts(1); });  // JAX: defjvp_zero
  set("iota", [](const VjpArgs&, const Params&) { return Cts{}; });
}

// rev's cotangent is rev'd back; cumsum's is the cumsum the other way (JAX's transpose rule);
// pad's operand gets the cotangent at its own positions — JAX's rule: the cotangent un-padded
// by (-low, -high, 0) (zeros where negative padding cropped the operand), then sliced with
// stride interior + 1 — and the padding value the rest: sum(ct) - sum(operand's ct).
void pad_rev_cumsum_rules() {
  set("rev", [](const VjpArgs& a, const Params& p) {
    if (!a.wants(0)) return Cts(1);
    return Cts{rev(a.ct(0), p.get_ints("dimensions"))};
  });
  set("cumsum", [](const VjpArgs& a, const Params& p) {
    if (!a.wants(0)) return Cts(1);
    return Cts{cumsum(a.ct(0), p.get_int("axis"), !p.get_bool("reverse", false))};
  });
  set("pad", [](const VjpArgs& a, const Params& p) {
    Cts r(2);
    if (!a.wants(0) && !a.wants(1)) return r;
    const std::vector<int64_t> cfg = p.get_ints("padding_config");
    Value g = a.ct(0);
    std::vector<PadDim> unpad;
    std::vector<int64_t> start, strides, all;
    for (size_t d = 0; d < cfg.size() / 3; ++d) {
      unpad.push_back({-cfg[3 * d], -cfg[3 * d + 1], 0});
      start.push_back(0);
      strides.push_back(cfg[3 * d + 2] + 1);
      all.push_back(int64_t(d));
    }
    Value u = pad(g, a.builder->literal(0, g.dtype()), unpad);
    Value gx = slice(u, start, u.shape(), strides);
    if (a.wants(0)) r[0] = gx;
    if (a.wants(1)) r[1] = reduce_sum(g, all) - reduce_sum(gx, all);
    return r;
  });
}

// lstm_fwd(x, h0, c0, w, seq_lengths) -> (y, h_n, c_n, reserve): the vjp pass linearizes it in training mode (its
// vjp_forward_params), so the reserve is a residual like any other — saved, or recomputed by re-running lstm_fwd where
// the policy says so — and lstm_bwd computes all four float cotangents from it without re-running the forward. The
// reserve is an opaque buffer, not a value: a cotangent for it is ignored, as JAX's custom_vjp never exposes it.
void lstm_rules() {
  set("lstm_fwd", [](const VjpArgs& a, const Params& p) {
    Cts r(5);
    if (!a.wants(0) && !a.wants(1) && !a.wants(2) && !a.wants(3)) return r;
    TANDEM_CHECK(a.out_types.size() == 4, "lstm_fwd's vjp needs the training-mode forward (its reserve)");
    std::vector<Value> in{a.ct(0), a.ct(1), a.ct(2)};
    for (size_t i = 0; i < 5; ++i) in.push_back(a.primal_in(i));
    in.push_back(a.primal_out(0));
    in.push_back(a.primal_out(3));
    std::vector<Value> g = a.builder->bind("lstm_bwd", in, p);
    for (size_t i = 0; i < 4; ++i)
      if (a.wants(i)) r[i] = g[i];
    return r;
  });
  set("lstm_bwd", [](const VjpArgs&, const Params&) -> Cts {
    throw_unsupported("vjp of lstm_bwd (a second derivative of the LSTM primitive)",
                      "differentiate the LSTM Program (scan over a cell, suites/common/lstm_program.h) "
                      "for higher-order derivatives");
  });
}
}  // namespace

void register_indexing_vjp_rules() {
  indexing_rules();
  pad_rev_cumsum_rules();
  lstm_rules();
}

}  // namespace tandem
