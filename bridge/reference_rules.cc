// The reference rule table (reference_rules.h). Most rows are written once, generic over
// the op set they run on: ArrayOps (plain tandem::ref calls, for eval) or ref::Tape (the
// same ops, taped, for the reverse mode), which share one interface.
#include "bridge/reference_rules.h"

#include "engine/prims/dot_general.h"
#include "reference/gather.h"
#include "reference/reduce_window.h"
#include "reference/sort.h"

namespace tandem {
namespace {
using ref::Array;

// tandem::ref's free functions with ref::Tape's method names, so one row serves both.
struct ArrayOps {
  const Array& value(const Array& x) const { return x; }
  Array constant(Array v) const { return v; }
  Array unary(const std::string& op, const Array& x) const { return ref::unary(op, x); }
  Array integer_pow(const Array& x, int64_t y) const { return ref::integer_pow(x, y); }
  Array binary(const std::string& op, const Array& a, const Array& b) const { return ref::binary(op, a, b); }
  Array compare(const Array& a, const Array& b, const std::string& d) const { return ref::compare(a, b, d); }
  Array select(const Array& p, const Array& t, const Array& f) const { return ref::select(p, t, f); }
  Array is_finite(const Array& x) const { return ref::is_finite(x); }
  Array convert(const Array& x, DType to) const { return ref::convert(x, to); }
  Array broadcast_in_dim(const Array& x, std::vector<int64_t> shape, std::vector<int64_t> dims) const {
    return ref::broadcast_in_dim(x, std::move(shape), std::move(dims));
  }
  Array reshape(const Array& x, std::vector<int64_t> shape) const { return ref::reshape(x, std::move(shape)); }
  Array transpose(const Array& x, std::vector<int64_t> perm) const { return ref::transpose(x, std::move(perm)); }
  Array slice(const Array& x, std::vector<int64_t> lo, std::vector<int64_t> hi, std::vector<int64_t> st) const {
    return ref::slice(x, std::move(lo), std::move(hi), std::move(st));
  }
  Array dynamic_slice(const Array& x, std::vector<int64_t> starts, std::vector<int64_t> sizes) const {
    return ref::dynamic_slice(x, std::move(starts), std::move(sizes));
  }
  Array dynamic_update_slice(const Array& x, const Array& u, std::vector<int64_t> starts) const {
    return ref::dynamic_update_slice(x, u, std::move(starts));
  }
  Array concatenate(const std::vector<Array>& xs, int64_t d) const { return ref::concatenate(xs, d); }
  Array reduce_sum(const Array& x, std::vector<int64_t> axes) const { return ref::reduce_sum(x, std::move(axes)); }
  Array reduce_max(const Array& x, std::vector<int64_t> axes) const { return ref::reduce_max(x, std::move(axes)); }
  Array reduce_min(const Array& x, std::vector<int64_t> axes) const { return ref::reduce_min(x, std::move(axes)); }
  Array rev(const Array& x, std::vector<int64_t> dims) const { return ref::rev(x, dims); }
  Array pad(const Array& x, const Array& v, std::vector<int64_t> lo, std::vector<int64_t> hi, std::vector<int64_t> in) const {
    return ref::pad(x, v, lo, hi, in);
  }
  Array cumsum(const Array& x, int64_t axis, bool reverse) const { return ref::cumsum(x, axis, reverse); }
  Array dot_general(const Array& l, const Array& r, const ref::DotDims& d, DType out) const {
    return ref::dot_general(l, r, d, out);
  }
  Array gather(const Array& x, const Array& idx, const ref::GatherDims& d, std::vector<int64_t> slice,
               ref::IndexMode m, double fill) const {
    return ref::gather(x, idx, d, std::move(slice), m, fill);
  }
  Array scatter_add(const Array& x, const Array& idx, const Array& u, const ref::ScatterDims& d, ref::IndexMode m) const {
    return ref::scatter_add(x, idx, u, d, m);
  }
  Array scatter(const Array& x, const Array& idx, const Array& u, const ref::ScatterDims& d, ref::IndexMode m) const {
    return ref::scatter(x, idx, u, d, m);
  }
  std::vector<Array> sort(const std::vector<Array>& xs, int64_t dim, int64_t keys) const { return ref::sort(xs, dim, keys); }
  Array reduce_window_max(const Array& x, const ref::Window& w) const { return ref::reduce_window_max(x, w); }
  Array reduce_window_sum(const Array& x, const ref::Window& w) const { return ref::reduce_window_sum(x, w); }
};

// An operand rounded to an f8 format: on values, and on the tape as an op whose cotangent
// passes straight through (as convert's does).
Array as_f8(const ArrayOps&, const Array& x, const std::string& format) {
  Array r = x;
  r.data = ref::round_to_f8(format, x.data);
  return r;
}
ref::Tape::Id as_f8(ref::Tape& t, ref::Tape::Id x, const std::string& format) {
  return t.custom(as_f8(ArrayOps{}, t.value(x), format), {x}, [](const Array& g) { return std::vector<Array>{g}; });
}

// A row written once: f(ops, ctx, eqn, operands) -> outputs, ops being ArrayOps or the tape.
template <class F>
ReferenceRule generic(F f) {
  return ReferenceRule{
      [f](const Eqn& e, const std::vector<Array>& in, const RefEvalContext& ctx) {
        ArrayOps ops;
        return f(ops, ctx, e, in);
      },
      [f](const Eqn& e, const std::vector<ref::Tape::Id>& in, const RefTapeContext& ctx) {
        return f(ctx.tape, ctx, e, in);
      }};
}
// The common shape of a row: one output from the ops, the equation's params and operands.
template <class F>
ReferenceRule one(F f) {
  return generic([f](auto& o, const auto&, const Eqn& e, const auto& in) {
    return std::vector<std::decay_t<decltype(in[0])>>{f(o, e.params, in)};
  });
}
template <class F>
ReferenceRule nullary(F f) {  // no operands (iota): the output type comes from the ops' value
  return generic([f](auto& o, const auto&, const Eqn& e, const auto& in) {
    using V = typename std::decay_t<decltype(in)>::value_type;
    return std::vector<V>{o.constant(f(e.params))};
  });
}

// Index operands (dynamic_slice's starts) are read as values, whatever records them.
template <class Ops, class V>
std::vector<int64_t> index_values(const Ops& o, const std::vector<V>& in, size_t first) {
  std::vector<int64_t> s;
  for (size_t i = first; i < in.size(); ++i) s.push_back(int64_t(o.value(in[i]).data.at(0)));
  return s;
}
template <class Ops, class V>
std::vector<int64_t> axes_of(const Ops& o, const Params& p, const std::vector<V>& in, const char* key) {
  std::vector<int64_t> a = p.get_ints(key);
  for (int64_t& x : a)
    if (x < 0) x += int64_t(o.value(in[0]).shape.size());
  return a;
}
std::vector<int64_t> ints_or_empty(const Params& p, const char* key) {
  return p.has(key) ? p.get_ints(key) : std::vector<int64_t>{};
}

// rev, cumsum (axes normalized here, as the reference takes them non-negative) and pad
// (padding_config's flattened (low, high, interior) triples unzipped).
void add_pad_rev_cumsum_rules(std::map<std::string, ReferenceRule>& t) {
  t["rev"] = one([](auto& o, const Params& p, const auto& in) { return o.rev(in[0], axes_of(o, p, in, "dimensions")); });
  t["cumsum"] = one([](auto& o, const Params& p, const auto& in) {
    int64_t axis = p.get_int("axis");
    if (axis < 0) axis += int64_t(o.value(in[0]).shape.size());
    return o.cumsum(in[0], axis, p.get_bool("reverse", false));
  });
  t["pad"] = one([](auto& o, const Params& p, const auto& in) {
    const std::vector<int64_t> c = p.get_ints("padding_config");  // (low, high, interior) triples
    std::vector<int64_t> lo, hi, interior;
    for (size_t d = 0; d + 2 < c.size(); d += 3) {
      lo.push_back(c[d]);
      hi.push_back(c[d + 1]);
      interior.push_back(c[d + 2]);
    }
    return o.pad(in[0], in[1], lo, hi, interior);
  });
}

// gather / scatter_add params as the reference's dimension numbers; the fill is the param or
// the reference's own default (NaN, the lowest i32, true).
ref::GatherDims ref_gather_dims(const Params& p) {
  return {p.get_ints("offset_dims"), p.get_ints("collapsed_slice_dims"), p.get_ints("start_index_map"),
          ints_or_empty(p, "operand_batching_dims"), ints_or_empty(p, "start_indices_batching_dims")};
}
ref::ScatterDims ref_scatter_dims(const Params& p) {
  return {p.get_ints("update_window_dims"), p.get_ints("inserted_window_dims"), p.get_ints("scatter_dims_to_operand_dims"),
          ints_or_empty(p, "operand_batching_dims"), ints_or_empty(p, "scatter_indices_batching_dims")};
}
ref::IndexMode ref_mode(const Params& p) { return ref::index_mode(p.get_string("mode", "PROMISE_IN_BOUNDS")); }
double ref_fill(const Params& p, DType t) {
  if (!p.has("fill_value")) return ref::default_fill(t);
  const Param& v = p.items().at("fill_value");
  if (const int64_t* i = std::get_if<int64_t>(&v)) return double(*i);
  if (const bool* b = std::get_if<bool>(&v)) return double(*b);
  return p.get_double("fill_value");
}

void add_gather_sort_rows(std::map<std::string, ReferenceRule>& t) {
  t["gather"] = one([](auto& o, const Params& p, const auto& in) {
    return o.gather(in[0], o.value(in[1]), ref_gather_dims(p), p.get_ints("slice_sizes"), ref_mode(p),
                    ref_fill(p, o.value(in[0]).dtype));
  });
  t["scatter_add"] = one([](auto& o, const Params& p, const auto& in) {
    return o.scatter_add(in[0], o.value(in[1]), in[2], ref_scatter_dims(p), ref_mode(p));
  });
  t["scatter"] = one([](auto& o, const Params& p, const auto& in) {
    return o.scatter(in[0], o.value(in[1]), in[2], ref_scatter_dims(p), ref_mode(p));
  });
  t["sort"] = generic([](auto& o, const auto&, const Eqn& e, const auto& in) {
    return o.sort(in, e.params.get_int("dimension"), e.params.get_int("num_keys", 1));
  });
}

// reduce_window params as the reference's Window (strides, padding and dilations default to
// 1, (0, 0), 1 when absent, as the engine's shape rule reads them).
ref::Window ref_window(const Params& p, size_t rank) {
  auto ints_or = [&p](const char* k, size_t n, int64_t v) {
    return p.has(k) ? p.get_ints(k) : std::vector<int64_t>(n, v);
  };
  ref::Window w{p.get_ints("window_dimensions"), ints_or("window_strides", rank, 1), {},
                ints_or("base_dilation", rank, 1), ints_or("window_dilation", rank, 1)};
  const std::vector<int64_t> pad = ints_or("padding", 2 * rank, 0);
  for (size_t d = 0; d + 1 < pad.size(); d += 2) w.padding.emplace_back(pad[d], pad[d + 1]);
  return w;
}

void add_window_rows(std::map<std::string, ReferenceRule>& t) {
  t["reduce_window_max"] = one([](auto& o, const Params& p, const auto& in) {
    return o.reduce_window_max(in[0], ref_window(p, o.value(in[0]).shape.size()));
  });
  t["reduce_window_sum"] = one([](auto& o, const Params& p, const auto& in) {
    return o.reduce_window_sum(in[0], ref_window(p, o.value(in[0]).shape.size()));
  });
}

std::map<std::string, ReferenceRule> build_table() {
  std::map<std::string, ReferenceRule> t;
  t["integer_pow"] = one([](auto& o, const Params& p, const auto& in) { return o.integer_pow(in[0], p.get_int("y")); });
  t["compare"] = one([](auto& o, const Params& p, const auto& in) {
    return o.compare(in[0], in[1], p.get_string("direction", ""));
  });
  t["select"] = one([](auto& o, const Params&, const auto& in) { return o.select(in[0], in[1], in[2]); });
  t["convert_element_type"] = one([](auto& o, const Params& p, const auto& in) {
    return o.convert(in[0], p.get_dtype("new_dtype"));
  });
  t["broadcast_in_dim"] = one([](auto& o, const Params& p, const auto& in) {
    return o.broadcast_in_dim(in[0], p.get_ints("shape"), p.get_ints("broadcast_dimensions"));
  });
  t["reshape"] = one([](auto& o, const Params& p, const auto& in) { return o.reshape(in[0], p.get_ints("new_sizes")); });
  t["transpose"] = one([](auto& o, const Params& p, const auto& in) {
    return o.transpose(in[0], p.get_ints("permutation"));
  });
  t["slice"] = one([](auto& o, const Params& p, const auto& in) {
    return o.slice(in[0], p.get_ints("start_indices"), p.get_ints("limit_indices"), ints_or_empty(p, "strides"));
  });
  t["dynamic_slice"] = one([](auto& o, const Params& p, const auto& in) {
    return o.dynamic_slice(in[0], index_values(o, in, 1), p.get_ints("slice_sizes"));
  });
  t["dynamic_update_slice"] = one([](auto& o, const Params&, const auto& in) {
    return o.dynamic_update_slice(in[0], in[1], index_values(o, in, 2));
  });
  t["concatenate"] = one([](auto& o, const Params& p, const auto& in) {
    int64_t d = p.get_int("dimension");
    return o.concatenate(in, d < 0 ? d + int64_t(o.value(in[0]).shape.size()) : d);
  });
  t["iota"] = nullary([](const Params& p) {
    return ref::iota(p.get_dtype("dtype"), p.get_ints("shape"), p.get_int("dimension"));
  });
  t["reduce_sum"] = one([](auto& o, const Params& p, const auto& in) { return o.reduce_sum(in[0], axes_of(o, p, in, "axes")); });
  t["reduce_max"] = one([](auto& o, const Params& p, const auto& in) { return o.reduce_max(in[0], axes_of(o, p, in, "axes")); });
  t["reduce_min"] = one([](auto& o, const Params& p, const auto& in) { return o.reduce_min(in[0], axes_of(o, p, in, "axes")); });
  t["is_finite"] = one([](auto& o, const Params&, const auto& in) { return o.is_finite(in[0]); });
  add_pad_rev_cumsum_rules(t);
  // dot_general is exact (f64) and then rounded to its output dtype, whatever precision the
  // equation asks for: the true answer every algorithm's error is measured against. Under an
  // ANY_F8 preset the operands are first rounded to their f8 formats by the reference's own
  // rounding: in JAX they are f8 arrays, so the exact dot is the dot of the f8 values.
  t["dot_general"] = generic([](auto& o, const auto&, const Eqn& e, const auto& in) {
    DotSignature s = dot_signature({e.in[0].type(), e.in[1].type()}, e.params);
    ref::DotDims d{s.lhs_contract, s.rhs_contract, s.lhs_batch, s.rhs_batch};
    const std::optional<DotAlgorithm> alg = parse_algorithm(s.precision);
    if (alg && algorithm_info(*alg).f8_inputs)
      return std::vector<std::decay_t<decltype(in[0])>>{o.dot_general(
          as_f8(o, in[0], f8_info(s.f8.lhs).name), as_f8(o, in[1], f8_info(s.f8.rhs).name), d, s.out_dtype)};
    return std::vector<std::decay_t<decltype(in[0])>>{o.dot_general(in[0], in[1], d, s.out_dtype)};
  });
  t["checkpoint_name"] = generic([](auto&, const auto&, const Eqn&, const auto& in) { return in; });
  // A transfer between memory kinds: the identity on values (the reference has one memory).
  t["device_put"] = generic([](auto&, const auto&, const Eqn&, const auto& in) { return in; });
  // The reference stores everything: a checkpoint is its body inlined, no remat.
  t["checkpoint"] = generic([](auto&, const auto& ctx, const Eqn& e, const auto& in) {
    return ctx.run_program(*e.params.get_program("body"), in);
  });
  t["scan"] = scan_reference_rule();
  t["while"] = while_reference_rule();
  t["cond"] = cond_reference_rule();
  t["conv_general_dilated"] = conv_reference_rule();
  t["lstm_fwd"] = lstm_fwd_reference_rule();
  t["lstm_bwd"] = lstm_bwd_reference_rule();
  add_collective_reference_rules(t);
  add_gather_sort_rows(t);
  add_logical_reference_rules(t);
  add_window_rows(t);
  // Unary and binary elementwise primitives: the reference op of the same name.
  for (const std::string& name : primitive_names()) {
    const Primitive& p = primitive(name);
    if (p.has(kElementwiseUnary))
      t[name] = one([name](auto& o, const Params&, const auto& in) { return o.unary(name, in[0]); });
    if (p.has(kElementwiseBinary))
      t[name] = one([name](auto& o, const Params&, const auto& in) { return o.binary(name, in[0], in[1]); });
  }
  return t;
}
}  // namespace

const std::map<std::string, ReferenceRule>& reference_rules() {
  static const std::map<std::string, ReferenceRule> table = build_table();
  return table;
}

const ReferenceRule& reference_rule(const std::string& primitive) {
  auto it = reference_rules().find(primitive);
  if (it == reference_rules().end())
    throw_unsupported(cat("the reference has no rule for primitive ", primitive),
                      "add its row to bridge/reference_rules.cc");
  return it->second;
}

}  // namespace tandem
