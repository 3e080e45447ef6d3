// vjp pass: every rule against central finite differences in f64 (through the engine's own
// f64 path), scan, checkpoint, zero cotangents, precision reuse and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/core/error.h"
#include "engine/ir/builder_logical.h"
#include "engine/ir/executor.h"
#include "engine/passes/vjp.h"
#include "engine/prims/checkpoint.h"
#include "engine/prims/lstm.h"

namespace tandem {
namespace {

Tensor rnd(const Shape& s, uint32_t seed, double lo = -1, double hi = 1) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(size_t(num_elements(s)));
  for (double& x : v) x = u(g);
  return Tensor::from_f64(v, s, DType::f64);
}

// L(x) = sum_k <out_k, ct_k>; compares dL/dx_i from the vjp with central differences.
void check_grad(const Program& p, const std::vector<Tensor>& in, const Policy& top = everything_saveable()) {
  std::vector<Tensor> cts;
  uint32_t seed = 100;
  for (const AType& t : p.out_types()) cts.push_back(rnd(t.shape, seed++));
  VjpRun r = run_vjp(vjp(p, {}, top), in, cts);
  auto loss = [&](const std::vector<Tensor>& x) {
    auto out = Executor().run(p, x);
    double s = 0;
    for (size_t k = 0; k < out.size(); ++k) {
      auto a = out[k].to_f64(), c = cts[k].to_f64();
      for (size_t i = 0; i < a.size(); ++i) s += a[i] * c[i];
    }
    return s;
  };
  size_t gi = 0;
  for (size_t k = 0; k < in.size(); ++k) {
    if (!is_floating(in[k].dtype())) continue;  // i32 start indices: not differentiated
    auto g = r.cotangents.at(gi++).to_f64();
    auto base = in[k].to_f64();
    for (size_t i = 0; i < base.size(); ++i) {
      const double h = 1e-6;
      auto xs = in;
      auto bp = base, bm = base;
      bp[i] += h;
      bm[i] -= h;
      xs[k] = Tensor::from_f64(bp, in[k].shape(), in[k].dtype());
      double fp = loss(xs);
      xs[k] = Tensor::from_f64(bm, in[k].shape(), in[k].dtype());
      double fd = (fp - loss(xs)) / (2 * h);
      EXPECT_NEAR(g[i], fd, 1e-6 * (1 + std::abs(fd))) << "input " << k << " element " << i;
    }
  }
}

using Fn = std::function<std::vector<Value>(Builder&, const std::vector<Value>&)>;
void check(const std::vector<Shape>& shapes, Fn fn, double lo = -1, double hi = 1) {
  std::vector<AType> t;
  std::vector<Tensor> in;
  for (size_t i = 0; i < shapes.size(); ++i) {
    t.push_back({shapes[i], DType::f64});
    in.push_back(rnd(shapes[i], uint32_t(i + 1), lo, hi));
  }
  check_grad(trace(t, fn), in);
}
using V = std::vector<Value>;

// A unary op not finite at -1 (log, sqrt, rsqrt, log1p) is checked on positive operands.
bool positive_domain(const std::string& op) {
  Program p = trace({{{1}, DType::f64}}, [op](Builder& b, auto& v) { return V{b.bind1(op, {v[0]})}; });
  return !std::isfinite(Executor().run(p, {Tensor::from_f64({-1}, {1}, DType::f64)})[0].to_f64()[0]);
}

// Every unary and binary elementwise primitive (from their traits, so a new one is checked
// without a line here) against finite differences.
TEST(Vjp, Unary) {
  for (const std::string& op : primitive_names())
    // stop_gradient's derivative is 0 by definition, not its forward's (Vjp.StopGradient).
    if (primitive(op).has(kElementwiseUnary) && op != "stop_gradient") {
      const bool pos = positive_domain(op);
      check({{2, 3}}, [op](Builder& b, auto& v) { return V{b.bind1(op, {v[0]})}; }, pos ? 0.5 : -1, pos ? 2 : 1);
    }
  for (int64_t n : {0, 1, 2, 3}) check({{4}}, [n](Builder&, auto& v) { return V{integer_pow(v[0], n) + v[0]}; });
}

// stop_gradient is the identity with no cotangent at all (JAX's symbolic zero): the gradient of
// stop_gradient(x)·x is x, and a NaN cotangent of stop_gradient(x) does not reach x.
TEST(Vjp, StopGradient) {
  Builder b;
  Value x = b.input({3}, DType::f64);
  Value held = b.bind1("stop_gradient", {x});
  Program p = b.build({held * x, held});
  const double nan = std::nan("");
  VjpRun r = run_vjp(vjp(p), {Tensor::from_f64({1, -2, 3}, {3}, DType::f64)},
                     {Tensor::from_f64({1, 1, 1}, {3}, DType::f64), Tensor::from_f64({nan, nan, nan}, {3}, DType::f64)});
  EXPECT_EQ(r.cotangents.at(0).to_f64(), (std::vector<double>{1, -2, 3}));
}

TEST(Vjp, Binary) {
  for (const std::string& op : primitive_names())
    if (primitive(op).has(kElementwiseBinary))
      check({{3, 2}, {3, 2}}, [op](Builder& b, auto& v) { return V{b.bind1(op, {v[0], v[1]})}; }, 0.5, 2);
  check({{4}, {}}, [](Builder&, auto& v) { return V{v[0] * v[1] + v[1], (v[0] - 1.0) * 3.0}; });
  check({{4}}, [](Builder& b, auto& v) { return V{max(v[0], b.literal(0, DType::f64))}; });
}

// reduce_prod (JAX's product-tree rule) against finite differences, odd and even lengths;
// at zeros, exactly: no division, so one zero's position gets the product of the others.
TEST(Vjp, ReduceProd) {
  check({{3, 5, 2}}, [](Builder&, auto& v) { return V{reduce_prod(v[0], {1}), reduce_prod(v[0], {0, 2}), reduce_prod(v[0], {})}; }, 0.5, 1.5);
  Builder b;
  Value x = b.input({5}, DType::f64);
  Program p = b.build({reduce_prod(x, {0})});
  for (auto [in, want] : {std::pair{std::vector<double>{2, 0, 3, 0.5, 4}, std::vector<double>{0, 12, 0, 0, 0}},
                          std::pair{std::vector<double>{2, 0, 3, 0, 4}, std::vector<double>{0, 0, 0, 0, 0}}}) {
    VjpRun r = run_vjp(vjp(p), {Tensor::from_f64(in, {5}, DType::f64)}, {Tensor::from_f64({1}, {}, DType::f64)});
    EXPECT_EQ(r.cotangents.at(0).to_f64(), want);
  }
}

TEST(Vjp, SelectConvertAndNames) {
  check({{6}, {6}}, [](Builder&, auto& v) { return V{select(compare(v[0], v[1], "lt"), v[0] * v[1], sin(v[1]))}; });
  check({{3}}, [](Builder&, auto& v) {
    Value c = convert_element_type(convert_element_type(v[0], DType::f32), DType::f64);
    return V{c * 0.0 + checkpoint_name(v[0] * v[0], "sq")};
  });
}

TEST(Vjp, Structure) {
  check({{3}}, [](Builder&, auto& v) { return V{broadcast_in_dim(v[0], {2, 3, 4}, {1})}; });
  check({{1, 3}}, [](Builder&, auto& v) { return V{broadcast_in_dim(v[0], {2, 4, 3}, {1, 2})}; });
  check({{2, 3}}, [](Builder&, auto& v) { return V{reshape(v[0], {3, 2}), transpose(v[0], {1, 0}), slice(v[0], {0, 1}, {2, 3})}; });
  check({{2, 3}, {2, 1}}, [](Builder&, auto& v) { return V{concatenate({v[0], v[1], v[0]}, 1)}; });
  check({{2, 3, 4}}, [](Builder&, auto& v) { return V{reduce_sum(v[0], {0, 2}), reduce_sum(v[0], {1})}; });
}

// Start indices as literals, as traced i32 inputs, and out of range (clamped like XLA).
TEST(Vjp, DynamicSliceAndUpdate) {
  auto i32 = [](Builder& b, double v) { return b.literal(v, DType::i32); };
  check({{4, 5}}, [&](Builder& b, auto& v) {
    return V{dynamic_slice(v[0], {i32(b, 1), i32(b, 2)}, {2, 3}), dynamic_slice(v[0], {i32(b, 7), i32(b, -3)}, {3, 2})};
  });
  check({{4, 5}, {2, 3}}, [&](Builder& b, auto& v) {
    return V{dynamic_update_slice(v[0], v[1], {i32(b, 2), i32(b, 1)}),
             dynamic_update_slice(v[0] * v[0], sin(v[1]), {i32(b, 9), i32(b, 0)})};
  });
  AType x{{6}, DType::f64}, u{{2}, DType::f64}, idx{{}, DType::i32};
  Program p = trace({x, u, idx}, [](Builder&, auto& v) {
    return V{dynamic_update_slice(v[0], v[1] * v[1], {v[2]}) * dynamic_slice(v[0], {v[2]}, {6})};
  });
  for (double start : {0.0, 3.0, 5.0})
    check_grad(p, {rnd({6}, 1), rnd({2}, 2), Tensor::from_f64({start}, {}, DType::i32)});
}

TEST(Vjp, StridedSlice) {
  check({{7, 5}}, [](Builder&, auto& v) {
    return V{slice(v[0], {1, 0}, {7, 5}, {2, 3}), slice(v[0], {0, 1}, {6, 4}, {3, 1}),
             slice(v[0], {2, 4}, {3, 5}, {4, 4})};
  });
}

// Distinct random values: the max is unique, where reduce_max is differentiable.
TEST(Vjp, ReduceMax) {
  check({{3, 4, 2}}, [](Builder&, auto& v) {
    return V{reduce_max(v[0], {1}), reduce_max(sin(v[0]), {0, 2}), reduce_max(v[0], {0, 1, 2})};
  });
}

// Ties share the cotangent evenly (JAX's location indicators over their count), for
// reduce_min as for reduce_max.
TEST(Vjp, ReduceMaxTiesSplitTheCotangent) {
  Program p = trace({{{2, 3}, DType::f64}}, [](Builder&, auto& v) { return V{reduce_max(v[0], {1}), reduce_min(v[0], {1})}; });
  VjpRun r = run_vjp(vjp(p), {Tensor::from_f64({1, 5, 5, 2, 2, 2}, {2, 3}, DType::f64)},
                     {Tensor::from_f64({6, 9}, {2}, DType::f64), Tensor::from_f64({1, 4}, {2}, DType::f64)});
  EXPECT_EQ(r.cotangents[0].to_f64(), (std::vector<double>{1, 3, 3, 3 + 4 / 3.0, 3 + 4 / 3.0, 3 + 4 / 3.0}));
}

// rev, pad (interior, negative low/high; the padding value's cotangent too), cumsum both ways
// and reduce_min against finite differences; abs's derivative at 0 is +1 (JAX's x >= 0).
TEST(Vjp, RevPadCumsumReduceMinAbs) {
  check({{3, 4}, {}}, [](Builder&, auto& v) {
    return V{rev(v[0], {0, -1}), pad(v[0], v[1], {{1, -1, 1}, {-2, 2, 0}}), cumsum(v[0], 1),
             cumsum(v[0], -2, true), reduce_min(v[0], {1})};
  });
  Program p = trace({{{3}, DType::f64}}, [](Builder&, auto& v) { return V{abs(v[0])}; });
  VjpRun r = run_vjp(vjp(p), {Tensor::from_f64({0.0, -0.0, -2}, {3}, DType::f64)}, {Tensor::from_f64({1, 1, 1}, {3}, DType::f64)});
  EXPECT_EQ(r.cotangents[0].to_f64(), (std::vector<double>{1, 1, -1}));
}

// compare and iota are not differentiable: they pass no cotangent, so the float paths
// around them still get exact gradients.
TEST(Vjp, CompareAndIotaPassNoCotangent) {
  check({{2, 3}, {2, 3}}, [](Builder& b, auto& v) {
    Value ramp = convert_element_type(iota(b, DType::i32, {2, 3}, 1), DType::f64);
    Value mask = convert_element_type(compare(v[0], v[1], "gt"), DType::f64);
    return V{v[0] * ramp + mask * v[1]};
  });
}

// The LSTM primitive is f32 only: its rule (lstm_bwd) against f32 central differences.
TEST(Vjp, LstmFwdUsesLstmBwd) {
  LstmConfig c{2, 3, 2, 3, 1, false};
  int64_t np = get_num_params_in_lstm(c.input, c.hidden, c.layers, c.bidirectional);
  AType x{{c.batch, c.seq, c.input}, DType::f32}, h{{1, c.batch, c.hidden}, DType::f32};
  AType w{{np}, DType::f32}, lens{{c.batch}, DType::i32};
  Program p = trace({x, h, h, w, lens}, [&](Builder& b, auto& v) {
    return b.bind("lstm_fwd", v, lstm_params(c));
  });
  auto f32 = [](const Shape& s, uint32_t seed) {
    return Tensor::from_f64(rnd(s, seed, -0.5, 0.5).to_f64(), s, DType::f32);
  };
  std::vector<Tensor> in{f32(x.shape, 1), f32(h.shape, 2), f32(h.shape, 3), f32(w.shape, 4),
                         Tensor::from_f64({3, 2}, {2}, DType::i32)};
  std::vector<Tensor> cts;
  for (const AType& t : p.out_types()) cts.push_back(f32(t.shape, 7 + uint32_t(cts.size())));
  VjpRun r = run_vjp(vjp(p), in, cts);
  ASSERT_EQ(r.cotangents.size(), 4u);
  auto loss = [&](const std::vector<Tensor>& xs) {
    auto out = Executor().run(p, xs);
    double s = 0;
    for (size_t k = 0; k < out.size(); ++k) {
      auto a = out[k].to_f64(), ct = cts[k].to_f64();
      for (size_t i = 0; i < a.size(); ++i) s += a[i] * ct[i];
    }
    return s;
  };
  for (size_t k = 0; k < 4; ++k) {
    auto g = r.cotangents[k].to_f64();
    auto base = in[k].to_f64();
    for (size_t i = 0; i < base.size(); ++i) {
      const double step = 1.0 / 64;  // exact in f32: the points evaluated are base ± step
      auto xs = in;
      auto bp = base, bm = base;
      bp[i] += step;
      bm[i] -= step;
      xs[k] = Tensor::from_f64(bp, in[k].shape(), DType::f32);
      double fp = loss(xs);
      xs[k] = Tensor::from_f64(bm, in[k].shape(), DType::f32);
      double fd = (fp - loss(xs)) / (2 * step);
      EXPECT_NEAR(g[i], fd, 2e-3 + 2e-2 * std::abs(fd)) << "operand " << k << " element " << i;
    }
  }
  // lstm_bwd (on a training forward's y and reserve) is first-order only: refused, not zero.
  AType y{{c.batch, c.seq, c.hidden}, DType::f32};
  try {
    vjp(trace({x, h, h, w, lens, y, h, h}, [&](Builder& b, auto& v) {
      Params tp = lstm_params(c, "HIGHEST", /*training=*/true);
      std::vector<Value> f = b.bind("lstm_fwd", {v[0], v[1], v[2], v[3], v[4]}, tp);
      return b.bind("lstm_bwd", {v[5], v[6], v[7], v[0], v[1], v[2], v[3], v[4], f[0], f[3]}, tp);
    }));
    ADD_FAILURE() << "vjp of lstm_bwd was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported) << e.message();
  }
}

TEST(Vjp, DotGeneral) {
  check({{3, 4}, {4, 5}}, [](Builder&, auto& v) { return V{dot(v[0], v[1])}; });
  check({{2, 4, 3}, {2, 5, 4}}, [](Builder&, auto& v) { return V{dot_general(v[0], v[1], DotDims{{1}, {2}, {0}, {0}})}; });
  check({{4, 3, 2}, {2, 4}}, [](Builder&, auto& v) { return V{dot_general(v[0], v[1], DotDims{{0, 2}, {1, 0}, {}, {}}, "HIGHEST")}; });
}

TEST(Vjp, DotTransposesKeepPrecision) {
  Program p = trace({{{3, 4}, DType::f32}, {{4, 5}, DType::f32}}, [](Builder&, auto& v) { return V{dot(v[0], v[1], "HIGHEST")}; });
  VjpProgram v = vjp(p);
  int dots = 0;
  for (const Eqn& e : v.backward.eqns)
    if (e.prim->name == "dot_general") {
      ++dots;
      EXPECT_EQ(e.params.get_string("precision", ""), "HIGHEST");
    }
  EXPECT_EQ(dots, 2);
}

TEST(Vjp, Scan) {
  AType s{{3}, DType::f64};
  Program body = trace({s, s, s}, [](Builder&, auto& v) {  // (w, h, x) -> (h', sin h')
    Value h = tanh(v[1] * v[0] + v[2]);
    return V{h, sin(h)};
  });
  for (bool rev : {false, true})
    check({{3}, {3}, {4, 3}}, [&](Builder&, auto& v) { return scan(body, {v[0]}, {v[1]}, {v[2]}, 4, rev); });
}

TEST(Vjp, CheckpointGradients) {
  AType s{{4}, DType::f64};
  Program body = trace({s, s}, [](Builder&, auto& v) { return V{sin(v[0] * v[1]) * v[0]}; });
  for (const char* pol : {"nothing_saveable", "everything_saveable", "dots_saveable"})
    check({{4}, {4}}, [&](Builder&, auto& v) { return V{cos(checkpoint(body, {v[0], v[1]}, pol)[0])}; });
  // Nested checkpoints under a recompute-everything top level.
  Program nested = trace({s, s}, [&](Builder&, auto& v) {
    Value y = checkpoint(body, {v[0], v[1]}, "nothing_saveable")[0];
    return V{sin(y) * v[1]};
  });
  Program p = trace({s, s}, [&](Builder&, auto& v) { return V{tanh(checkpoint(nested, v, "nothing_saveable")[0])}; });
  check_grad(p, {rnd({4}, 1), rnd({4}, 2)}, nothing_saveable());
}

// Scan partial evaluation under every policy: nested scans, a checkpoint inside the scan
// body, the scan inside a checkpoint, consts, xs, several carries and ys, reverse.
TEST(Vjp, ScanUnderPolicies) {
  AType s{{3}, DType::f64};
  Program inner = trace({s, s, s}, [](Builder&, auto& v) {  // (w, h, x) -> (h', h'·x)
    Value h = tanh(v[1] * v[0] + v[2]);
    return V{h, h * v[2]};
  });
  Program step = trace({s, s, s, s}, [&](Builder&, auto& v) {  // (w, h, c, x) -> (h', c', y)
    Value h = checkpoint(inner, {v[0], v[1], v[3]}, "dots_saveable")[0];
    Value d = dot_general(h, v[0], DotDims{{0}, {0}, {}, {}});  // a dot for dots_saveable
    Value c = cos(v[2]) * h + exp(v[3] * 0.5) * broadcast_in_dim(d, {3}, {});
    Value ys = scan(inner, {v[0]}, {h}, {broadcast_in_dim(v[3], {2, 3}, {1})}, 2)[1];
    return V{h, c, sin(reduce_sum(ys, {0}))};
  });
  for (const char* pol : {"everything_saveable", "nothing_saveable", "dots_saveable"})
    for (bool rev : {false, true}) {
      check({{3}, {3}, {3}, {4, 3}}, [&](Builder&, auto& v) { return scan(step, {v[0]}, {v[1], v[2]}, {v[3]}, 4, rev); });
      Program outer = trace({s, s, s, {{4, 3}, DType::f64}}, [&](Builder&, auto& v) {
        Program body = trace({s, s, s, {{4, 3}, DType::f64}}, [&](Builder&, auto& u) {
          return scan(step, {u[0]}, {u[1], u[2]}, {u[3]}, 4, rev);
        });
        return checkpoint(body, v, pol);
      });
      check_grad(outer, {rnd({3}, 1), rnd({3}, 2), rnd({3}, 3), rnd({4, 3}, 4)}, policy_from_string(pol));
    }
}

TEST(Vjp, UnusedInputGetsZeros) {
  Program p = trace({{{2}, DType::f32}, {{2}, DType::f32}}, [](Builder&, auto& v) { return V{sin(v[0])}; });
  VjpRun r = run_vjp(vjp(p), {Tensor::zeros({2}, DType::f32), Tensor::zeros({2}, DType::f32)},
                     {Tensor::from_f64({1, 1}, {2}, DType::f32)});
  EXPECT_EQ(r.cotangents[0].to_f64(), (std::vector<double>{1, 1}));
  EXPECT_EQ(r.cotangents[1].to_f64(), (std::vector<double>{0, 0}));
}

// An integer output gets no cotangent (JAX's float0): its cotangent input is read by nothing.
TEST(Vjp, IntegerOutputGetsNoCotangent) {
  Program ints = trace({{{2}, DType::f32}}, [](Builder&, auto& v) { return V{convert_element_type(v[0], DType::i32)}; });
  VjpRun r = run_vjp(vjp(ints), {Tensor::from_f64({1.5, 2}, {2}, DType::f32)}, {Tensor::from_f64({3, 4}, {2}, DType::i32)});
  EXPECT_EQ(r.cotangents.at(0).to_f64(), (std::vector<double>{0, 0}));
}

TEST(Vjp, BadInput) {
  Program p = trace({{{2}, DType::f32}}, [](Builder&, auto& v) { return V{sin(v[0])}; });
  EXPECT_THROW(vjp(p, {true, false}), Error);
}

}  // namespace
}  // namespace tandem
