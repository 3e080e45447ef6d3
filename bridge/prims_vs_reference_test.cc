// Every primitive, engine against the independent reference, over dtypes and edge shapes (scalars, zero-size dims,
// negative axes): the rows table keyed by primitive name (prims_vs_reference_rows.h), run on every backend (cuda skips
// with the reason when no GPU is visible or CUDA is not built). Each row checks the forward values and, where its types
// allow, the engine's vjp against the reference's taped reverse mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "bridge/device_usable.h"
#include "bridge/error_spec.h"
#include "bridge/prims_vs_reference_rows.h"
#include "bridge/reference_bridge.h"
#include "bridge/reference_vjp.h"
#include "bridge/seeded_inputs.h"
#include "engine/core/error.h"
#include "engine/ir/executor.h"
#include "engine/passes/vjp.h"
#include "engine/prims/checkpoint.h"
#include "engine/prims/collective_prims.h"
#include "engine/prims/device_put.h"
#include "engine/prims/lstm.h"
#include "engine/prims/while_loop.h"

namespace tandem {
namespace {
using V = std::vector<Value>;

void expect_close(const std::vector<double>& want, const Tensor& got, double ulps, const std::string& what) {
  ErrorSpec spec = elementwise_spec(got.dtype(), ulps);
  CompareReport r = compare(want, got.to_f64(), spec);
  EXPECT_TRUE(r.pass) << what << ": " << r.text();
}

bool grad_checkable(const Program& p) {
  if (p.in_vars.empty()) return false;
  DType d = p.in_vars[0]->type.dtype;
  if (d != DType::f64 && d != DType::f32) return false;
  for (const Var& v : p.in_vars)
    if (v->type.dtype != d) return false;
  for (const AType& t : p.out_types())
    if (!is_floating(t.dtype)) return false;
  return true;
}

// Returns whether the row also checked gradients.
bool run_row(const Row& row, Device device) {
  Program p = trace(row.inputs, row.fn);
  std::vector<Tensor> in;
  std::vector<ref::Array> ref_in;
  for (size_t i = 0; i < row.inputs.size(); ++i) {
    const AType& t = row.inputs[i];
    in.push_back(row.values.empty() ? seeded_uniform(t.shape, t.dtype, row.name + std::to_string(i), row.lo, row.hi)
                                    : Tensor::from_f64(row.values[i], t.shape, t.dtype));
    ref_in.push_back(to_ref(in.back()));
  }
  std::vector<Tensor> dev_in;
  for (const Tensor& t : in) dev_in.push_back(t.to(device));
  Executor ex(device);
  AxisEnv axes;
  for (const std::string& a : row.axes) axes[a] = single_member_axis(a);
  ex.set_axis_env(axes);
  auto got = ex.run(p, dev_in);
  auto want = reference_eval(p, ref_in, row.axes);
  EXPECT_EQ(got.size(), want.size());
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].shape(), want[i].shape) << row.name;
    EXPECT_EQ(got[i].dtype(), want[i].dtype) << row.name;
    expect_close(want[i].data, got[i], row.ulps, cat(row.name, " output ", i));
  }
  if (row.grad_ulps <= 0 || !grad_checkable(p)) return false;
  std::vector<Tensor> cts;
  std::vector<ref::Array> ref_cts;
  for (const AType& t : p.out_types()) {
    cts.push_back(seeded_uniform(t.shape, t.dtype, row.name + "/ct" + std::to_string(cts.size())));
    ref_cts.push_back(to_ref(cts.back()));
  }
  std::vector<Tensor> dev_cts;
  for (const Tensor& t : cts) dev_cts.push_back(t.to(device));
  VjpRun engine = run_vjp(vjp(p), dev_in, dev_cts, device);
  std::vector<ref::Array> ref_grads = reference_vjp(p, ref_in, ref_cts);
  EXPECT_EQ(engine.cotangents.size(), ref_grads.size()) << row.name;
  for (size_t i = 0; i < std::min(ref_grads.size(), engine.cotangents.size()); ++i)
    expect_close(ref_grads[i].data, engine.cotangents[i], row.grad_ulps, cat(row.name, " d/d input ", i));
  return true;
}

const DType kFloats[] = {DType::f64, DType::f32, DType::bf16, DType::f16};
// Unary primitives defined (and smooth) only for positive operands, read off the reference's
// table (its value at -1 is NaN or infinite: log, sqrt, rsqrt, log1p), not a list here: their rows draw from [0.1, 4);
// every other unary from [-2, 2).
bool positive_domain(const std::string& op) { return !std::isfinite(ref::unary_op(op).value(-1.0)); }

// A one-layer-or-more LSTM small enough for the f64 reference; seq_lengths 1..B (ragged)
// come from an iota, since they must lie in [1, T].
const LstmConfig kLstm{2, 3, 2, 3, 2, true};
Value lstm_lengths(Builder& b) { return iota(b, DType::i32, {kLstm.batch}, 0) + b.literal(1, DType::i32); }
std::vector<AType> lstm_operands() {
  Shape state{kLstm.pseudo_layers(), kLstm.batch, kLstm.hidden};
  int64_t p = get_num_params_in_lstm(kLstm.input, kLstm.hidden, kLstm.layers, kLstm.bidirectional);
  return {AType{{kLstm.batch, kLstm.seq, kLstm.input}, DType::f32}, AType{state, DType::f32},
          AType{state, DType::f32}, AType{{p}, DType::f32}};
}
// f32 against f64, as suites/lstm/lstm_check.cc derives it: 4u per gate dot of length
// max(In, D·H)+H+2, along a chain of T·L steps; the backward twice that, dw summed over B·T.
const double kLstmFwdUlps =
    4.0 * double(std::max(kLstm.input, kLstm.dirs() * kLstm.hidden) + kLstm.hidden + 2) * double(kLstm.seq * kLstm.layers);
const double kLstmBwdUlps = 2 * kLstmFwdUlps * double(kLstm.batch * kLstm.seq);

// Collectives over axis "i" bound as a world of one member on both sides; the multi-member
// checks are suites/vmap's (virtual ranks and mpirun) against the mesh reference. The
// reference tape has no collective rules (one process), so no gradients here.
template <class Add>
void add_collective_rows(Add& add) {
  AType t{{1, 3}, DType::f32};
  auto row = [&add, t](const std::string& prim, std::function<Value(Builder&, Value)> f) {
    add(prim, Row{"axis_of_one/" + prim, {t}, [f](Builder& b, const V& a) { return V{f(b, a[0])}; }, -2, 2, 0, 0, {"i"}});
  };
  row("psum", [](Builder&, Value x) { return psum(x, "i"); });
  row("pmean", [](Builder&, Value x) { return pmean(x, "i"); });
  row("pmax", [](Builder&, Value x) { return pmax(x, "i"); });
  row("pmin", [](Builder&, Value x) { return pmin(x, "i"); });
  row("all_gather", [](Builder&, Value x) { return all_gather(x, "i", 1, -1); });
  row("psum_scatter", [](Builder&, Value x) { return psum_scatter(x, "i", 1, 0); });
  row("all_to_all", [](Builder&, Value x) { return all_to_all(x, "i", 1, 0, 1); });
  row("ppermute", [](Builder&, Value x) { return ppermute(x, "i", {{0, 0}}); });
  row("axis_index", [](Builder& b, Value x) { return x + convert_element_type(axis_index(b, "i"), DType::f32); });
}

// The rows of every floating dtype t: elementwise ops from their traits, reductions, dot,
// converts (with the exact ties of each narrower format), checkpointing, device_put.
template <class Add>
void add_float_rows(Add& add, DType t) {
  std::string d(dtype_name(t));
  // Unary and binary elementwise primitives get their rows from their trait: a new one is
  // checked here (values and vjp) without a line in this file.
  for (const std::string& op : primitive_names()) {
    if (primitive(op).has(kElementwiseUnary)) {
      auto [lo, hi] = positive_domain(op) ? std::pair{0.1, 4.0} : std::pair{-2.0, 2.0};
      add(op, {cat(op, "/", d), {AType{{3, 5}, t}}, [op](Builder& b, const V& a) { return V{b.bind1(op, {a[0]})}; },
               lo, hi});
    }
    if (primitive(op).has(kElementwiseBinary))
      add(op, {cat(op, "/", d), {AType{{2, 3}, t}, AType{{2, 3}, t}},
               [op](Builder& b, const V& a) { return V{b.bind1(op, {a[0], a[1]})}; }});
  }
  add("integer_pow", {"integer_pow/" + d, {AType{{6}, t}}, [](Builder&, const V& a) {
                        return V{integer_pow(a[0], 3), integer_pow(a[0], -2), integer_pow(a[0], 0)}; }, 0.5, 2});
  add("mul", {"scalar_literal/" + d, {AType{{4}, t}}, [](Builder&, const V& a) { return V{a[0] * 3.0 + 1.0}; }});
  add("select", {"compare_select/" + d, {AType{{5}, t}, AType{{5}, t}}, [](Builder&, const V& a) {
                   return V{select(compare(a[0], a[1], "lt"), a[0], a[1])}; }});
  add("compare", {"compare/" + d, {AType{{5}, t}, AType{{5}, t}}, [](Builder&, const V& a) {
                    return V{compare(a[0], a[1], "ge"), compare(a[0], a[1], "ne")}; }});
  add("reduce_sum", {"reduce/" + d, {AType{{3, 4, 5}, t}}, [](Builder&, const V& a) {
                       return V{reduce_sum(a[0], {0, 2}), reduce_max(a[0], {-1}), reduce_sum(a[0], {}),
                                reduce_sum(a[0], {0, 1, 2})}; }});
  add("reduce_max", {"reduce_zero_size/" + d, {AType{{0, 3}, t}}, [](Builder&, const V& a) {
                       return V{reduce_sum(a[0], {0}), reduce_max(a[0], {0})}; }});
  add("reduce_min", {"reduce_min/" + d, {AType{{3, 4, 5}, t}, AType{{}, t}}, [](Builder&, const V& a) {
                       return V{reduce_min(a[0], {0, 2}), reduce_min(a[0], {-1}), reduce_min(a[1], {})}; }});
  add("reduce_min", {"reduce_min_zero_size/" + d, {AType{{0, 3}, t}}, [](Builder&, const V& a) {
                       return V{reduce_min(a[0], {0}), reduce_min(a[0], {1})}; }});
  // log of the negative draws is NaN: both answers of is_finite, on a tensor and a scalar.
  add("is_finite", {"is_finite/" + d, {AType{{3, 5}, t}, AType{{}, t}}, [](Builder&, const V& a) {
                      return V{is_finite(log(a[0])), is_finite(a[1]), is_finite(a[0] * 0.0)}; }});
  add("dot_general", {"dot/" + d, {AType{{2, 3, 4}, t}, AType{{2, 4, 5}, t}}, [](Builder&, const V& a) {
                        return V{dot_general(a[0], a[1], {{2}, {1}, {0}, {0}})}; }});
  // No contracting axis (JAX's empty dimension numbers): an outer product, [2,3]·[4,5] ->
  // [2,3,4,5], and with a batch axis [2,3]·[2,5] -> [2,3,5].
  add("dot_general", {"dot_outer/" + d, {AType{{2, 3}, t}, AType{{4, 5}, t}}, [](Builder&, const V& a) {
                        return V{dot_general(a[0], a[1], {{}, {}, {}, {}})}; }});
  add("dot_general", {"dot_batch_outer/" + d, {AType{{2, 3}, t}, AType{{2, 5}, t}}, [](Builder&, const V& a) {
                        return V{dot_general(a[0], a[1], {{}, {}, {0}, {0}})}; }});
  for (DType to : {DType::f64, DType::f32, DType::bf16, DType::f16, DType::i32, DType::pred})
    add("convert_element_type", {cat("convert/", d, "->", dtype_name(to)), {AType{{9}, t}},
                                 [to](Builder&, const V& a) { return V{convert_element_type(a[0], to)}; }, -100, 100});
  // Exact ties of each narrower float format that this dtype holds, both directions of rounding, both signs, the
  // overflow tie, the subnormal ties: the result must be the reference's round-half-to-even exactly (0 ulps), as JAX's
  // convert is (runners/cli/dot_ties_vs_ml_dtypes_test.py records JAX's answers on the same grid).
  for (DType to : {DType::f32, DType::bf16, DType::f16}) {
    std::vector<double> ties;
    for (double v : ref::tie_points(to))
      if (to != t && ref::round_to(t, v) == v) ties.push_back(v);
    if (!ties.empty())
      add("convert_element_type", {cat("convert_ties/", d, "->", dtype_name(to)), {AType{{int64_t(ties.size())}, t}},
                                   [to](Builder&, const V& a) { return V{convert_element_type(a[0], to)}; },
                                   0, 0, 0, 0, {}, {ties}});
  }
  add("checkpoint", {"checkpoint/" + d, {AType{{4}, t}, AType{{4}, t}}, [t](Builder&, const V& a) {
                       Program body = trace({AType{{4}, t}, AType{{4}, t}}, [](Builder&, const V& v) {
                         return V{checkpoint_name(sin(v[0]) * v[1], "h") + v[0]}; });
                       return checkpoint(body, a, "nothing_saveable"); }});
  add("checkpoint_name", {"checkpoint_name/" + d, {AType{{3}, t}}, [](Builder&, const V& a) {
                            return V{checkpoint_name(a[0] * a[0], "sq")}; }});
  add("device_put", {"device_put/" + d, {AType{{3}, t}}, [](Builder&, const V& a) {
                       Value host = device_put(a[0] * a[0], MemoryKind::pinned_host);
                       return V{device_put(host, MemoryKind::device, MemoryKind::pinned_host) + a[0]}; }});
}

// Layout and integer rows of f32, i32 and bf16: broadcast, reshape, transpose, slice,
// concatenate, iota and integer arithmetic.
template <class Add>
void add_layout_rows(Add& add, DType t) {
  std::string d(dtype_name(t));
  add("broadcast_in_dim", {"broadcast/" + d, {AType{{3, 1}, t}}, [](Builder&, const V& a) {
                             return V{broadcast_in_dim(a[0], {2, 3, 4}, {1, 2})}; }});
  add("broadcast_in_dim", {"broadcast_scalar/" + d, {AType{{}, t}}, [](Builder&, const V& a) {
                             return V{broadcast_in_dim(a[0], {2, 2}, {})}; }});
  add("transpose", {"reshape_transpose/" + d, {AType{{2, 3, 4}, t}}, [](Builder&, const V& a) {
                      return V{transpose(a[0], {2, 0, 1}), reshape(a[0], {4, 6}), reshape(a[0], {24})}; }});
  add("reshape", {"reshape/" + d, {AType{{2, 3}, t}}, [](Builder&, const V& a) { return V{reshape(a[0], {3, 1, 2})}; }});
  add("slice", {"slice/" + d, {AType{{7, 5}, t}}, [](Builder&, const V& a) {
                  return V{slice(a[0], {1, 0}, {6, 5}, {2, 3}), slice(a[0], {2, 2}, {2, 4})}; }});
  add("concatenate", {"concatenate/" + d, {AType{{2, 3}, t}, AType{{2, 1}, t}, AType{{2, 0}, t}},
                      [](Builder&, const V& a) { return V{concatenate({a[0], a[1], a[2]}, -1)}; }});
  add("iota", {"iota/" + d, {}, [t](Builder& b, const V&) {
                 return V{iota(b, t == DType::bf16 ? DType::f32 : t, {3, 4}, 1)}; }});
  add("neg", {"int_ops/" + d, {AType{{6}, t}, AType{{6}, t}}, [](Builder&, const V& a) {
                return V{a[0] + a[1], a[0] * a[1], max(a[0], a[1]), -a[0], abs(a[0]), sign(a[1])}; }, -50, 50});
}

template <class Add>
void add_axis_grid_rows(Add& add) {
  // Every valid axis of a rank-3 operand, both forms where JAX's API takes negative ones
  // (jnp.sum / jnp.concatenate; lax's iota and transpose take none): values and vjp.
  for (int64_t a = -3; a <= 2; ++a) {
    const AType x{{2, 3, 4}, DType::f32};
    const int64_t other = (a + 4) % 3;  // a second reduced axis, non-negative, not a
    add("reduce_sum", {cat("axis_grid/reduce_sum/a:", a), {x}, [a, other](Builder&, const V& v) {
                         return V{reduce_sum(v[0], {a}), reduce_sum(v[0], {other, a})}; }});
    add("reduce_max", {cat("axis_grid/reduce_max/a:", a), {x}, [a, other](Builder&, const V& v) {
                         return V{reduce_max(v[0], {a}), reduce_max(v[0], {a, other})}; }});
    add("reduce_min", {cat("axis_grid/reduce_min/a:", a), {x}, [a, other](Builder&, const V& v) {
                         return V{reduce_min(v[0], {a}), reduce_min(v[0], {other, a})}; }});
    add("concatenate", {cat("axis_grid/concatenate/a:", a), {x, x}, [a](Builder&, const V& v) {
                          return V{concatenate({v[0], v[1], v[0]}, a)}; }});
    if (a >= 0)
      add("iota", {cat("axis_grid/iota/dimension:", a), {}, [a](Builder& b, const V&) { return V{iota(b, DType::i32, {2, 3, 4}, a)}; }});
  }
  for (std::vector<int64_t> perm : {std::vector<int64_t>{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}})
    add("transpose", {cat("axis_grid/transpose/perm:", perm[0], perm[1], perm[2]), {AType{{2, 3, 4}, DType::f32}},
                      [perm](Builder&, const V& v) { return V{transpose(v[0], perm)}; }});
}

template <class Add>
void add_dynamic_slice_and_scan_rows(Add& add) {
  // dynamic_slice / dynamic_update_slice with in-range and clamped starts.
  for (int start : {1, 7, -3})
    for (DType t : {DType::f64, DType::f32}) {
      std::string tag = cat("start:", start, "/", dtype_name(t));
      add("dynamic_slice", {"dynamic_slice/" + tag, {AType{{6, 4}, t}}, [start](Builder& b, const V& a) {
                              Value s0 = b.literal(start, DType::i32), s1 = b.literal(1, DType::i32);
                              return V{dynamic_slice(a[0], {s0, s1}, {3, 2})}; }});
      add("dynamic_update_slice", {"dynamic_update_slice/" + tag, {AType{{6, 4}, t}, AType{{2, 3}, t}},
                                   [start](Builder& b, const V& a) {
                                     Value s0 = b.literal(start, DType::i32), s1 = b.literal(0, DType::i32);
                                     return V{dynamic_update_slice(a[0], a[1], {s0, s1})}; }});
    }
  // scan: forward and reverse, with consts, several carries and ys.
  for (bool reverse : {false, true})
    for (DType t : {DType::f64, DType::f32}) {
      AType v3{{3}, t}, s{{}, t};
      Program body = trace({v3, v3, s, v3}, [](Builder&, const V& a) {
        Value h = tanh(a[0] * a[1] + a[3]);
        Value n = a[2] + reduce_sum(h, {0});
        return V{h, n, sin(h), n};
      });
      add("scan", {cat("scan/reverse:", reverse, "/", dtype_name(t)), {v3, v3, s, AType{{5, 3}, t}},
                   [body, reverse](Builder&, const V& a) { return scan(body, {a[0]}, {a[1], a[2]}, {a[3]}, 5, reverse); }});
    }
}

// while: Newton's sqrt(a) to a residual tolerance (a trip count the data decides, far from the tolerance at every step,
// so f32 and f64 stop together), with a step counter and cond and body consts; a predicate false at once (no body run).
// No gradients: the engine's vjp refuses a while, as JAX's does (reference_vjp_test.cc checks the reference's tape).
template <class Add>
void add_while_rows(Add& add) {
  for (DType t : {DType::f64, DType::f32})
    for (double tol : {1e-3, 1e3}) {
      AType v4{{4}, t}, i32{{}, DType::i32};
      Program cond = trace({v4, v4, i32}, [tol, t](Builder& b, const V& a) {
        Value r = a[1] * a[1] - a[0];
        return V{compare(reduce_max(max(r, -r), {0}), b.literal(tol, t), "gt")};
      });
      Program body = trace({v4, v4, i32}, [](Builder& b, const V& a) {
        return V{(a[1] + a[0] / a[1]) * 0.5, a[2] + b.literal(1, DType::i32)};
      });
      Row row{cat("while/newton/tol:", tol, "/", dtype_name(t)), {v4}, [cond, body](Builder& b, const V& a) {
                return while_loop(cond, body, {a[0]}, {a[0]}, {a[0] + 1.0, b.literal(0, DType::i32)}); }};
      row.lo = 0.5, row.hi = 4, row.grad_ulps = 0;
      add("while", row);
    }
}

// rev, pad (interior, negative low/high) and cumsum (both directions) over float and i32
// dtypes, negative axes, zero-size and rank-0 operands; values and, for f64/f32, the vjp.
template <class Add>
void add_pad_rev_cumsum_rows(Add& add) {
  for (DType t : {DType::f64, DType::f32, DType::bf16, DType::i32}) {
    const std::string d(dtype_name(t));
    const AType x{{3, 4, 2}, t}, m{{3, 4}, t}, s{{}, t}, z{{0, 3}, t};
    add("rev", {"rev/" + d, {x}, [](Builder&, const V& a) { return V{rev(a[0], {0, 2}), rev(a[0], {-1}), rev(a[0], {})}; }});
    add("rev", {"rev_edge/" + d, {s, z}, [](Builder&, const V& a) { return V{rev(a[0], {}), rev(a[1], {0, -1})}; }});
    add("pad", {"pad/" + d, {m, s}, [](Builder&, const V& a) {
                  return V{pad(a[0], a[1], {{1, 2, 0}, {0, 1, 2}}), pad(a[0], a[1], {{-1, 1, 1}, {2, -3, 0}}),
                           pad(a[0], a[1], {{0, 0, 3}, {-2, -2, 0}})}; }});
    add("pad", {"pad_edge/" + d, {z, s}, [](Builder&, const V& a) {
                  return V{pad(a[0], a[1], {{1, 1, 2}, {0, -1, 0}}), pad(a[1], a[1], {})}; }});
    add("cumsum", {"cumsum/" + d, {x}, [](Builder&, const V& a) {
                     return V{cumsum(a[0], 0), cumsum(a[0], -1, true), cumsum(a[0], 1, true), cumsum(a[0], 1)}; }});
    add("cumsum", {"cumsum_edge/" + d, {z, AType{{1}, t}}, [](Builder&, const V& a) {
                     return V{cumsum(a[0], 1), cumsum(a[0], 0, true), cumsum(a[1], -1)}; }});
  }
}

// lstm_fwd, and lstm_bwd on the reserve of a training forward.
template <class Add>
void add_lstm_rows(Add& add) {
  add("lstm_fwd", {"lstm_fwd", lstm_operands(), [](Builder& b, const V& a) {
                     return b.bind("lstm_fwd", {a[0], a[1], a[2], a[3], lstm_lengths(b)}, lstm_params(kLstm)); },
                   -0.5, 0.5, kLstmFwdUlps, kLstmBwdUlps});
  // lstm_bwd reads the reserve of a training forward on the same operands, so the row runs
  // both: operands dy, dh_n, dc_n, x, h0, c0, w.
  std::vector<AType> bwd_in = lstm_operands();
  std::vector<AType> fwd_out = primitive("lstm_fwd").shape({bwd_in[0], bwd_in[1], bwd_in[2], bwd_in[3],
                                                            AType{{kLstm.batch}, DType::i32}}, lstm_params(kLstm));
  bwd_in.insert(bwd_in.begin(), fwd_out.begin(), fwd_out.end());
  add("lstm_bwd", {"lstm_bwd", bwd_in, [](Builder& b, const V& a) {
                     Params tp = lstm_params(kLstm, "HIGHEST", /*training=*/true);
                     V f = b.bind("lstm_fwd", {a[3], a[4], a[5], a[6], lstm_lengths(b)}, tp);
                     return b.bind("lstm_bwd", {a[0], a[1], a[2], a[3], a[4], a[5], a[6], lstm_lengths(b), f[0], f[3]}, tp); },
                   -0.5, 0.5, kLstmBwdUlps, 0});  // first-order only: no vjp to compare
}

std::map<std::string, std::vector<Row>> build_rows() {
  std::map<std::string, std::vector<Row>> r;
  auto add = [&r](const std::string& prim, Row row) { r[prim].push_back(std::move(row)); };
  for (DType t : kFloats) add_float_rows(add, t);
  for (DType t : {DType::f32, DType::i32, DType::bf16}) add_layout_rows(add, t);
  add_axis_grid_rows(add);
  add_dynamic_slice_and_scan_rows(add);
  add_while_rows(add);
  add_conv_rows(add);
  add_collective_rows(add);
  add_pad_rev_cumsum_rows(add);
  add_lstm_rows(add);
  add_gather_sort_rows(r);
  add_logical_rows(add);
  add_window_rows(r);
  add_cond_rows(r);
  return r;
}

class PrimsVsReference : public ::testing::TestWithParam<Device> {};
}  // namespace

// Readable parameter in test names ("cuda:0", not the bytes of a Device).
void PrintTo(const Device& d, std::ostream* os) { *os << d.str(); }

namespace {

TEST_P(PrimsVsReference, EveryRow) {
  std::string why = device_unavailable_reason(GetParam());
  if (!why.empty()) GTEST_SKIP() << why;
  size_t n = 0, with_grads = 0;
  for (const auto& [prim, rows] : prims_vs_reference_rows())
    for (const Row& row : rows) {
      SCOPED_TRACE(prim + ": " + row.name);
      try {
        with_grads += run_row(row, GetParam());
      } catch (const std::exception& e) {
        ADD_FAILURE() << row.name << " threw: " << e.what();
      }
      ++n;
    }
  EXPECT_GT(n, 100u);
  EXPECT_GT(with_grads, 50u) << "rows whose vjp was compared with the reference's tape";
  std::cout << n << " rows, " << with_grads << " with gradients\n";
}

INSTANTIATE_TEST_SUITE_P(Backends, PrimsVsReference, ::testing::Values(Device::cpu(), Device::cuda(0)),
                         [](const auto& info) {
                           return std::string(info.param.kind == DeviceKind::cpu ? "cpu" : "cuda");
                         });

}  // namespace

const std::map<std::string, std::vector<Row>>& prims_vs_reference_rows() {
  static const std::map<std::string, std::vector<Row>> rows = build_rows();
  return rows;
}

}  // namespace tandem
