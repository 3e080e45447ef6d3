// vmap pass: every batching rule against a per-example loop on the engine itself (f64, so
// the only difference is summation order), the axis cases (leading, middle, last, negative,
// not mapped), composition with vjp / checkpoint / scan hoisting / itself, and bad input.
#include "engine/passes/vmap.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/core/error.h"
#include "engine/ir/executor.h"
#include "engine/passes/hoist_scan_reductions.h"
#include "engine/passes/vjp.h"
#include "engine/prims/checkpoint.h"
#include "engine/prims/lstm.h"
#include "engine/prims/while_loop.h"

namespace tandem {
namespace {
using V = std::vector<Value>;
using Fn = std::function<V(Builder&, const V&)>;
using Axes = std::vector<VmapAxis>;

Tensor rnd(const Shape& s, uint32_t seed, DType dt = DType::f64, double lo = -1, double hi = 1) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(size_t(num_elements(s)));
  for (double& x : v) x = dt == DType::i32 ? std::floor(u(g)) : u(g);
  return Tensor::from_f64(v, s, dt);
}

// vmap(p)(args) against running p on each example.
void check(const Program& p, const Axes& in_axes, const Axes& out_axes, const std::vector<Tensor>& args,
           double tol = 1e-12) {
  std::vector<AType> types;
  for (const Tensor& t : args) types.push_back(t.type());
  int64_t n = vmap_axis_size(p, in_axes, types);
  std::vector<Tensor> got = run_vmap(p, in_axes, out_axes, args);
  std::vector<std::vector<Tensor>> per(p.out_vars.size()), ex(args.size());
  for (size_t k = 0; k < args.size(); ++k)
    if (const VmapAxis& a = in_axes.empty() ? VmapAxis(0) : in_axes[k]) ex[k] = unstack(args[k], *a);
  for (int64_t i = 0; i < n; ++i) {
    std::vector<Tensor> xi;
    for (size_t k = 0; k < args.size(); ++k) xi.push_back(ex[k].empty() ? args[k] : ex[k][size_t(i)]);
    auto out = Executor().run(p, xi);
    for (size_t j = 0; j < out.size(); ++j) per[j].push_back(out[j]);
  }
  ASSERT_EQ(got.size(), per.size());
  for (size_t j = 0; j < got.size(); ++j) {
    VmapAxis oa = out_axes.empty() ? VmapAxis(0) : out_axes[j];
    Shape want_shape = per[j][0].shape();
    if (oa) want_shape.insert(want_shape.begin() + (*oa < 0 ? *oa + int64_t(want_shape.size()) + 1 : *oa), n);
    ASSERT_EQ(got[j].shape(), want_shape) << "output " << j;
    auto g = got[j].to_f64(), w = oa ? stack(per[j], *oa).to_f64() : per[j][0].to_f64();
    for (size_t e = 0; e < g.size(); ++e)
      ASSERT_NEAR(g[e], w[e], tol * (1 + std::abs(w[e]))) << "output " << j << " element " << e;
  }
}

// vjp(vmap(f)) with a scalar f mapped at 0: the cotangent of a mapped input is the stacked
// per-example cotangents, that of an unmapped one their sum (args end with the output cts).
void expect_gradient_of_vmap_sums_per_example(const Program& f, const Axes& in_axes, const std::vector<Tensor>& args) {
  int64_t n = args.back().shape()[0];
  std::vector<Tensor> g = Executor().run(vjp_joint(vmap(f, in_axes, {0}, n)), args);
  Axes joint_axes = in_axes;
  joint_axes.push_back(0);
  std::vector<Tensor> per = run_vmap(vjp_joint(f), joint_axes, Axes(1 + f.in_vars.size(), 0), args);
  for (size_t k = 1; k < g.size(); ++k) {
    auto got = g[k].to_f64(), each = per[k].to_f64();
    size_t m = got.size();
    for (size_t e = 0; e < m; ++e) {
      double want = 0;
      if (in_axes[k - 1]) want = each[e];
      else for (int64_t i = 0; i < n; ++i) want += each[size_t(i) * m + e];
      EXPECT_NEAR(got[e], want, 1e-12 * (1 + std::abs(want))) << "cotangent " << k << " element " << e;
    }
  }
}

Program prog(const std::vector<AType>& t, Fn f) { return trace(t, f); }
AType f64(const Shape& s) { return {s, DType::f64}; }

TEST(Vmap, EveryPrimitiveHasABatchRule) {
  for (const std::string& n : primitive_names()) EXPECT_TRUE(bool(primitive(n).batch)) << n << " has no batching rule";
}

TEST(Vmap, UnaryAtEveryAxis) {
  Program p = prog({f64({3, 4})}, [](Builder&, const V& v) {
    return V{tanh(sin(v[0])) + exp(v[0] * 0.5) + integer_pow(v[0], 3) - logistic(cos(v[0]))};
  });
  for (int64_t a : {0, 1, 2, -1, -2, -3})
    for (int64_t o : {0, 1, 2, -1}) check(p, {a}, {o}, {rnd(a == 0 || a == -3 ? Shape{5, 3, 4} : a == 1 || a == -2 ? Shape{3, 5, 4} : Shape{3, 4, 5}, 1)});
}

TEST(Vmap, BinaryMixesMappedUnmappedAndScalars) {
  Program p = prog({f64({3, 4}), f64({3, 4}), f64({})}, [](Builder&, const V& v) {
    return V{max(v[0] * v[1], v[2]) / (v[1] * v[1] + 1.0), min(v[0], v[2]) - v[2]};
  });
  check(p, {0, std::nullopt, std::nullopt}, {0, 1}, {rnd({2, 3, 4}, 1), rnd({3, 4}, 2), rnd({}, 3)});
  check(p, {1, 2, std::nullopt}, {2, 0}, {rnd({3, 5, 4}, 1), rnd({3, 4, 5}, 2), rnd({}, 3)});
  check(p, {std::nullopt, std::nullopt, 0}, {-1, 0}, {rnd({3, 4}, 1), rnd({3, 4}, 2), rnd({7}, 3)});
  check(p, {-1, 0, 0}, {0, -1}, {rnd({3, 4, 1}, 1), rnd({1, 3, 4}, 2), rnd({1}, 3)});
}

TEST(Vmap, SelectCompareConvert) {
  Program p = prog({f64({4}), f64({4}), f64({})}, [](Builder& b, const V& v) {
    Value pr = compare(v[0], v[1], "lt");
    Value s = select(pr, v[0], v[1]);
    Value scalar_pred = compare(v[2], b.literal(0, DType::f64), "gt");
    Value t = select(scalar_pred, v[1], v[0]);
    return V{s + t, convert_element_type(convert_element_type(v[0] * 10.0, DType::i32), DType::f64)};
  });
  check(p, {0, std::nullopt, 0}, {0, 0}, {rnd({3, 4}, 1), rnd({4}, 2), rnd({3}, 3)});
  check(p, {std::nullopt, 1, std::nullopt}, {1, 1}, {rnd({4}, 1), rnd({4, 3}, 2), rnd({}, 3)});
}

TEST(Vmap, Reductions) {
  Program p = prog({f64({3, 4, 5})}, [](Builder&, const V& v) {
    return V{reduce_sum(v[0], {0, 2}), reduce_max(v[0], {1}), reduce_sum(v[0], {-1})};
  });
  for (int64_t a : {0, 1, 2, 3, -1}) {
    Shape s{3, 4, 5};
    s.insert(s.begin() + (a < 0 ? a + 4 : a), 2);
    check(p, {a}, {0, 1, -1}, {rnd(s, 4)});
  }
}

// rev / cumsum / reduce_min / is_finite with negative axes at every batch axis; pad with a
// mapped operand, and with a mapped padding value (each example its own: run per example).
TEST(Vmap, RevPadCumsumReduceMinIsFinite) {
  Program p = prog({f64({3, 4}), f64({})}, [](Builder&, const V& v) {
    Value fin = convert_element_type(is_finite(log(v[0])), DType::f64);
    return V{rev(v[0], {-1}) + cumsum(v[0], 0, true) + fin, pad(v[0], v[1], {{1, -1, 1}, {-2, 0, 0}}),
             reduce_min(cumsum(v[0], -1), {0})};
  });
  for (int64_t a : {0, 1, 2, -1}) {
    Shape s{3, 4};
    s.insert(s.begin() + (a < 0 ? a + 3 : a), 2);
    check(p, {a, std::nullopt}, {0, 1, -1}, {rnd(s, 4), rnd({}, 5)});
  }
  check(p, {std::nullopt, 0}, {0, 0, 0}, {rnd({3, 4}, 4), rnd({2}, 5)});
  check(p, {1, 0}, {1, 0, 0}, {rnd({3, 2, 4}, 4), rnd({2}, 5)});
}

TEST(Vmap, DotGeneralEveryMappingAndBatchDims) {
  auto mm = prog({f64({3, 4}), f64({4, 5})}, [](Builder&, const V& v) { return V{dot(v[0], v[1])}; });
  check(mm, {0, 0}, {0}, {rnd({2, 3, 4}, 1), rnd({2, 4, 5}, 2)});
  check(mm, {1, 2}, {2}, {rnd({3, 2, 4}, 1), rnd({4, 5, 2}, 2)});
  check(mm, {0, std::nullopt}, {0}, {rnd({2, 3, 4}, 1), rnd({4, 5}, 2)});
  check(mm, {2, std::nullopt}, {1}, {rnd({3, 4, 2}, 1), rnd({4, 5}, 2)});
  check(mm, {std::nullopt, 0}, {0}, {rnd({3, 4}, 1), rnd({2, 4, 5}, 2)});
  check(mm, {std::nullopt, 1}, {-1}, {rnd({3, 4}, 1), rnd({4, 2, 5}, 2)});
  auto bmm = prog({f64({2, 4, 3}), f64({2, 5, 4})}, [](Builder&, const V& v) {
    return V{dot_general(v[0], v[1], DotDims{{1}, {2}, {0}, {0}})};
  });
  check(bmm, {1, 3}, {0}, {rnd({2, 6, 4, 3}, 1), rnd({2, 5, 4, 6}, 2)});
  check(bmm, {3, std::nullopt}, {2}, {rnd({2, 4, 3, 6}, 1), rnd({2, 5, 4}, 2)});
  check(bmm, {std::nullopt, 0}, {3}, {rnd({2, 4, 3}, 1), rnd({6, 2, 5, 4}, 2)});
}

TEST(Vmap, LayoutPrimitives) {
  Program p = prog({f64({3, 4}), f64({2, 4})}, [](Builder& b, const V& v) {
    Value bc = broadcast_in_dim(v[0], {2, 3, 4}, {1, 2});
    Value r = reshape(transpose(v[0], {1, 0}), {2, 6});
    Value sl = slice(v[0], {1, 0}, {3, 4}, {1, 2});
    Value cat_ = concatenate({v[0], v[1]}, 0);
    Value io = iota(b, DType::f64, {3, 4}, 1);
    return V{reduce_sum(bc, {0}) + io, r, sl, cat_};
  });
  check(p, {0, std::nullopt}, {0, 1, 2, 0}, {rnd({5, 3, 4}, 1), rnd({2, 4}, 2)});
  check(p, {std::nullopt, 2}, {-1, 0, 0, 1}, {rnd({3, 4}, 1), rnd({2, 4, 5}, 2)});
  check(p, {1, 1}, {0, 0, 0, 0}, {rnd({3, 5, 4}, 1), rnd({2, 5, 4}, 2)});
}

TEST(Vmap, DynamicSliceAndUpdateWithMappedIndices) {
  Program p = prog({f64({6, 5}), {{}, DType::i32}, {{}, DType::i32}, f64({2, 3})}, [](Builder&, const V& v) {
    Value ds = dynamic_slice(v[0], {v[1], v[2]}, {2, 3});
    Value dus = dynamic_update_slice(v[0], v[3], {v[2], v[1]});
    return V{ds, dus};
  });
  Tensor idx = Tensor::from_f64({0, 4, 2, 9}, {4}, DType::i32);  // 9 clamps, as XLA does
  Tensor idx2 = Tensor::from_f64({3, 1, -2, 2}, {4}, DType::i32);
  Tensor one = Tensor::scalar(1, DType::i32), two = Tensor::scalar(2, DType::i32);
  // operand mapped, indices not: a wider window
  check(p, {0, std::nullopt, std::nullopt, 0}, {0, 0}, {rnd({4, 6, 5}, 1), one, two, rnd({4, 2, 3}, 2)});
  check(p, {2, std::nullopt, std::nullopt, std::nullopt}, {1, 2}, {rnd({6, 5, 4}, 1), one, two, rnd({2, 3}, 2)});
  // indices mapped (a gather / scatter per example), operand mapped or not
  check(p, {0, 0, 0, 1}, {0, 0}, {rnd({4, 6, 5}, 1), idx, idx2, rnd({2, 4, 3}, 2)});
  check(p, {std::nullopt, 0, std::nullopt, std::nullopt}, {1, -1}, {rnd({6, 5}, 1), idx, two, rnd({2, 3}, 2)});
}

Program scan_program() {
  // carry c (mapped only through x), a const w, xs of length 6: c' = tanh(c * w + x_t), y = c'·2
  Program body = trace({f64({3}), f64({3}), f64({3})}, [](Builder&, const V& v) {
    Value c = tanh(v[1] * v[0] + v[2]);
    return V{c, c * 2.0};
  });
  return trace({f64({3}), f64({3}), f64({6, 3})}, [&](Builder&, const V& v) {
    return scan(body, {v[0]}, {v[1]}, {v[2]}, 6);
  });
}

TEST(Vmap, ScanCarriesBecomeMappedAtAFixedPoint) {
  Program p = scan_program();
  std::optional<int64_t> n;
  // only xs mapped (the carry must be forced mapped), on the scanned axis' neighbour
  check(p, {n, n, 1}, {0, 1}, {rnd({3}, 1), rnd({3}, 2), rnd({6, 4, 3}, 3)});
  check(p, {n, n, 0}, {-1, 0}, {rnd({3}, 1), rnd({3}, 2), rnd({4, 6, 3}, 3)});
  check(p, {0, n, n}, {0, 2}, {rnd({4, 3}, 1), rnd({3}, 2), rnd({6, 3}, 3)});
  check(p, {n, 1, 2}, {0, 0}, {rnd({3}, 1), rnd({3, 4}, 2), rnd({6, 3, 4}, 3)});
}

// Newton's sqrt(a) from x0 with a step count: cond (a, x, i) reads the residual, so with a or
// x0 mapped the predicate is mapped and examples stop at different steps (their carries
// must stay as they stopped); with only a body const mapped and a cond of the count alone it
// is not. cond: max |x·x - a| > tol; body (a, s, x, i) -> ((x + a/x)/2 + s·0, i + 1).
Program newton_program(bool count_cond) {
  AType i32{{}, DType::i32};
  Program cond = trace({f64({2}), f64({2}), i32}, [count_cond](Builder& b, const V& v) {
    if (count_cond) return V{compare(v[2], b.literal(3, DType::i32), "lt")};
    Value r = v[1] * v[1] - v[0];
    return V{compare(reduce_max(max(r, -r), {0}), b.literal(1e-9, DType::f64), "gt")};
  });
  Program body = trace({f64({2}), f64({2}), f64({2}), i32}, [](Builder& b, const V& v) {
    return V{(v[2] + v[0] / v[2]) * 0.5 + v[1] * 0.0, v[3] + b.literal(1, DType::i32)};
  });
  return trace({f64({2}), f64({2}), f64({2}), i32}, [&](Builder&, const V& v) {
    return while_loop(cond, body, {v[0]}, {v[0], v[1]}, {v[2], v[3]});
  });
}

TEST(Vmap, WhileStopsEachExampleWhereItsPredicateFails) {
  std::optional<int64_t> n;
  Tensor a = rnd({5, 2}, 1, DType::f64, 0.01, 50), x0 = rnd({5, 2}, 2, DType::f64, 0.5, 60);
  Tensor zero = Tensor::from_f64({0}, {}, DType::i32), s = rnd({2}, 3);
  for (bool count_cond : {false, true}) {
    Program p = newton_program(count_cond);
    check(p, {0, n, 0, n}, {0, 0}, {a, s, x0, zero});  // mapped predicate (unless count_cond)
    check(p, {n, n, 1, n}, {1, 0}, {rnd({2}, 4, DType::f64, 0.5, 9), s, rnd({2, 5}, 5, DType::f64, 1, 30), zero});
    check(p, {n, 0, n, n}, {0, 0}, {rnd({2}, 6, DType::f64, 1, 4), rnd({5, 2}, 7), rnd({2}, 8, DType::f64, 1, 2), zero});
  }
}

TEST(Vmap, CheckpointKeepsItsPolicy) {
  Program body = trace({f64({4})}, [](Builder&, const V& v) { return V{sin(sin(v[0]))}; });
  Program p = trace({f64({4})}, [&](Builder&, const V& v) { return checkpoint(body, v, "dots_saveable"); });
  check(p, {1}, {0}, {rnd({4, 3}, 1)});
  Program b = vmap(p, {0}, {0}, 3);
  ASSERT_EQ(b.eqns.back().prim->name, "checkpoint");
  EXPECT_EQ(b.eqns.back().params.get_string("policy", ""), "dots_saveable");
}

TEST(Vmap, LstmMergesIntoItsBatchOrLoops) {
  LstmConfig c{2, 5, 3, 4, 1, false};
  int64_t P = get_num_params_in_lstm(3, 4, 1, false);
  std::vector<AType> t{{{2, 5, 3}, DType::f32}, {{1, 2, 4}, DType::f32}, {{1, 2, 4}, DType::f32},
                       {{P}, DType::f32}, {{2}, DType::i32}};
  Program p = trace(t, [&](Builder& b, const V& v) { return b.bind("lstm_fwd", v, lstm_params(c)); });
  Tensor w = init_lstm_weight(7, 3, 4, 1, false);
  Tensor lens = Tensor::from_f64({5, 3, 2, 5, 1, 4}, {3, 2}, DType::i32);
  auto f = [](const Shape& s, uint32_t seed) { return rnd(s, seed, DType::f32); };
  std::optional<int64_t> n;
  check(p, {0, 2, n, n, 0}, {0, 1, 2}, {f({3, 2, 5, 3}, 1), f({1, 2, 3, 4}, 2), f({1, 2, 4}, 3), w, lens}, 1e-5);
  Tensor ws = Tensor::from_f64([&] { auto a = w.to_f64(), r = a; for (double x : a) r.push_back(x * 0.5); return r; }(),
                               {2, P}, DType::f32);
  check(p, {n, n, n, 0, n}, {0, 0, 0}, {f({2, 5, 3}, 1), f({1, 2, 4}, 2), f({1, 2, 4}, 3), ws, Tensor::from_f64({4, 5}, {2}, DType::i32)}, 1e-5);
}

// Per-example gradients: vmap of the joint vjp program, against vjp per example.
TEST(Vmap, PerExampleGradientsAndGradientOfVmap) {
  Program mlp = prog({f64({3}), f64({3, 4}), f64({4, 2})}, [](Builder&, const V& v) {
    Value h = tanh(dot(v[0], v[1]));
    return V{reduce_sum(logistic(dot(h, v[2])), {0})};
  });
  Program joint = vjp_joint(mlp);  // (x, w1, w2, ct) -> (y, dx, dw1, dw2)
  std::optional<int64_t> n;
  check(joint, {0, n, n, 0}, {0, 0, 0, 0}, {rnd({5, 3}, 1), rnd({3, 4}, 2), rnd({4, 2}, 3), rnd({5}, 4)});
  expect_gradient_of_vmap_sums_per_example(mlp, {0, n, n}, {rnd({5, 3}, 1), rnd({3, 4}, 2), rnd({4, 2}, 3), rnd({5}, 4)});
}

// Per-example gradients through the higher-order primitives: a remat'd body (vjp of a
// checkpoint recomputes inside the batched backward), a scan, and the LSTM primitives
// (lstm_bwd batched by its per-example loop).
TEST(Vmap, PerExampleGradientsThroughCheckpointScanAndLstm) {
  std::optional<int64_t> n;
  Program body = trace({f64({4}), f64({4, 4})}, [](Builder&, const V& v) { return V{sin(dot(v[1], sin(v[0])))}; });
  Program remat = trace({f64({4}), f64({4, 4})}, [&](Builder&, const V& v) {
    return V{reduce_sum(checkpoint(body, v, "nothing_saveable")[0], {0})};
  });
  check(vjp_joint(remat), {0, n, 0}, {0, 0, 0}, {rnd({3, 4}, 1), rnd({4, 4}, 2), rnd({3}, 3)});
  expect_gradient_of_vmap_sums_per_example(remat, {0, n}, {rnd({3, 4}, 1), rnd({4, 4}, 2), rnd({3}, 3)});
  Program sc = scan_program();
  check(vjp_joint(sc), {n, 0, 1, 0, 0}, {0, 0, 0, 0, 0},
        {rnd({3}, 1), rnd({5, 3}, 2), rnd({6, 5, 3}, 3), rnd({5, 3}, 4), rnd({5, 6, 3}, 5)});
  LstmConfig c{2, 4, 3, 2, 1, false};
  int64_t P = get_num_params_in_lstm(3, 2, 1, false);
  std::vector<AType> t{{{2, 4, 3}, DType::f32}, {{1, 2, 2}, DType::f32}, {{1, 2, 2}, DType::f32},
                       {{P}, DType::f32}, {{2}, DType::i32}};
  Program lstm = trace(t, [&](Builder& b, const V& v) {
    return V{reduce_sum(b.bind("lstm_fwd", v, lstm_params(c))[0], {0, 1, 2})};
  });
  auto f = [](const Shape& s, uint32_t seed) { return rnd(s, seed, DType::f32); };
  check(vjp_joint(lstm), {0, n, n, n, n, 0}, {0, 0, 0, 0, 0},
        {f({3, 2, 4, 3}, 1), f({1, 2, 2}, 2), f({1, 2, 2}, 3), init_lstm_weight(3, 3, 2, 1, false),
         Tensor::from_f64({4, 2}, {2}, DType::i32), f({3}, 4)}, 1e-5);
}

TEST(Vmap, OfVmapAndOfHoistedScan) {
  Program p = prog({f64({3, 4}), f64({4})}, [](Builder&, const V& v) { return V{dot(sin(v[0]), v[1])}; });
  Program inner = vmap(p, {1, std::nullopt}, {0}, 2);          // [3,2,4], [4] -> [2,3]
  check(inner, {0, 0}, {2}, {rnd({5, 3, 2, 4}, 1), rnd({5, 4}, 2)});  // -> [2,3,5]
  // The seed's MSE: ys of a scan, minus targets, squared, summed; hoisted into the body.
  Program body = trace({f64({4}), f64({4})}, [](Builder&, const V& v) { return V{v[0], sin(v[0] * v[1])}; });
  Program mse = trace({f64({4}), f64({7, 4}), f64({7, 4})}, [&](Builder&, const V& v) {
    V o = scan(body, {}, {v[0]}, {v[1]}, 7);
    return V{reduce_sum(integer_pow(o[1] - v[2], 2), {0, 1})};
  });
  HoistResult h = hoist_scan_reductions(mse, {.min_step_elements = 0});
  ASSERT_EQ(h.rewrites, 1);
  std::optional<int64_t> n;
  check(h.program, {0, 1, n}, {0}, {rnd({3, 4}, 1), rnd({7, 3, 4}, 2), rnd({7, 4}, 3)}, 1e-11);
  check(h.program, {n, n, 2}, {-1}, {rnd({4}, 1), rnd({7, 4}, 2), rnd({7, 4, 3}, 3)}, 1e-11);
}

TEST(Vmap, BadInputNamesTheProblem) {
  Program p = prog({f64({3, 4}), f64({4})}, [](Builder&, const V& v) { return V{dot(v[0], v[1]), v[1] * 2.0}; });
  auto bad = [](const std::function<void()>& f, const std::string& needle) {
    try {
      f();
      ADD_FAILURE() << "no error for " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_input);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_FALSE(e.hint().empty());
    }
  };
  bad([&] { vmap(p, {3, 0}, {0, 0}, 2); }, "in_axes[0] is 3");
  bad([&] { vmap(p, {0, -3}, {0, 0}, 2); }, "in_axes[1] is -3");
  bad([&] { vmap(p, {0, 0}, {0, 2}, 2); }, "out_axes[1] is 2");
  bad([&] { vmap(p, {0}, {0, 0}, 2); }, "1 in_axes");
  bad([&] { vmap(p, {0, std::nullopt}, {std::nullopt, 0}, 2); }, "output 0 is mapped");
  bad([&] { vmap_axis_size(p, {0, 0}, {f64({2, 3, 4}), f64({5, 4})}); }, "argument 0 (axis 0) has 2, argument 1 (axis 0) has 5");
  bad([&] { vmap_axis_size(p, {std::nullopt, std::nullopt}, {f64({3, 4}), f64({4})}); }, "no argument is mapped");
  bad([&] { vmap_axis_size(p, {1, 0}, {f64({2, 3, 4}), f64({2, 4})}); }, "the program takes");
  // unmapped output asked mapped: broadcast, as JAX's matchaxis
  check(p, {0, std::nullopt}, {1, -1}, {rnd({2, 3, 4}, 1), rnd({4}, 2)});
}

}  // namespace
}  // namespace tandem
