// The reference's reverse mode (Tape) against central finite differences (ref::grad) in
// f64, op by op, plus a composite (a two-layer tanh MLP) and the no-gradient cases.
#include "reference/grad_tape.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "reference/elementwise.h"
#include "reference/grad.h"

namespace tandem::ref {
namespace {

using Ids = std::vector<Tape::Id>;
using Build = std::function<Ids(Tape&, const Ids&)>;

// Deterministic values in [lo, hi), distinct (so max/min have no ties).
Array values(std::vector<int64_t> shape, int seed, double lo = -1, double hi = 1) {
  Array a{shape, DType::f64, std::vector<double>(size_t(shape_numel(shape)))};
  for (size_t i = 0; i < a.data.size(); ++i) {
    double u = std::fmod(0.6180339887 * double(i + 1) * double(seed + 3) + 0.1 * seed, 1.0);
    a.data[i] = lo + (hi - lo) * u;
  }
  return a;
}

// L = sum_k <out_k, ct_k>: the tape's dL/dx against central differences of L.
void check(const std::vector<Array>& x, const Build& f) {
  std::vector<Array> cts;
  auto loss = [&](Tape& t, const Ids& outs) {
    if (cts.empty())
      for (size_t k = 0; k < outs.size(); ++k) cts.push_back(values(t.value(outs[k]).shape, 50 + int(k)));
    double s = 0;
    for (size_t k = 0; k < outs.size(); ++k)
      for (size_t i = 0; i < cts[k].data.size(); ++i) s += t.value(outs[k]).data[i] * cts[k].data[i];
    return s;
  };
  Tape t;
  Ids in;
  for (const Array& a : x) in.push_back(t.input(a));
  Ids outs = f(t, in);
  loss(t, outs);
  std::vector<std::pair<Tape::Id, Array>> seeds;
  for (size_t k = 0; k < outs.size(); ++k) seeds.push_back({outs[k], cts[k]});
  std::vector<Array> got = t.gradients(seeds, in);
  std::vector<Array> want = grad([&](const std::vector<Array>& a) {
    Tape u;
    Ids ui;
    for (const Array& v : a) ui.push_back(u.input(v));
    return loss(u, f(u, ui));
  }, x);
  for (size_t k = 0; k < x.size(); ++k) {
    ASSERT_EQ(got[k].shape, x[k].shape);
    for (size_t i = 0; i < want[k].data.size(); ++i)
      EXPECT_NEAR(got[k].data[i], want[k].data[i], 1e-7 * (1 + std::abs(want[k].data[i])))
          << "input " << k << " element " << i;
  }
}

TEST(RefTape, Elementwise) {
  // Every unary op of the table, on positives (where log and sqrt are smooth too).
  for (const UnaryOp& u : unary_ops()) {
    SCOPED_TRACE(u.name);
    std::string op = u.name;
    if (!u.derivative) continue;  // a constant (stop_gradient): RefTape.StopGradient
    check({values({2, 3}, 1, 0.5, 2)}, [op](Tape& t, const Ids& v) { return Ids{t.unary(op, v[0])}; });
  }
  for (const UnaryOp& u : unary_ops()) {  // and on negatives, every op finite at -1 (not log, sqrt, rsqrt, log1p)
    SCOPED_TRACE(u.name);
    std::string op = u.name;
    if (u.derivative && std::isfinite(u.value(-1.0)))
      check({values({2, 3}, 1)}, [op](Tape& t, const Ids& v) { return Ids{t.unary(op, v[0])}; });
  }
  for (int64_t n : {0, 1, 2, 3})
    check({values({4}, 3)}, [n](Tape& t, const Ids& v) { return Ids{t.integer_pow(v[0], n)}; });
  for (const BinaryOp& o : binary_ops()) {
    SCOPED_TRACE(o.name);
    std::string op = o.name;
    check({values({3, 2}, 4, 0.5, 2), values({3, 2}, 5, 0.5, 2)},
          [op](Tape& t, const Ids& v) { return Ids{t.binary(op, v[0], v[1])}; });
    check({values({3}, 6, 0.5, 2), values({}, 7, 0.5, 2)},  // a rank-0 operand broadcasts
          [op](Tape& t, const Ids& v) { return Ids{t.binary(op, v[0], v[1]), t.binary(op, v[1], v[0])}; });
  }
}

// stop_gradient is a constant on the tape: the gradient of stop_gradient(x)·x is x, and a NaN
// seed on stop_gradient(x) does not reach x (JAX's symbolic zero; 0·NaN would).
TEST(RefTape, StopGradient) {
  Tape t;
  Tape::Id x = t.input(values({3}, 8, 0.5, 2));
  Tape::Id held = t.unary("stop_gradient", x);
  Tape::Id y = t.binary("mul", held, x);
  Array nan_seed = t.value(held);
  for (double& v : nan_seed.data) v = std::nan("");
  Array ones = t.value(y);
  for (double& v : ones.data) v = 1;
  std::vector<Array> g = t.gradients({{y, ones}, {held, nan_seed}}, {x});
  EXPECT_EQ(g.at(0).data, t.value(x).data);
}

// The cotangent of a zero-size value is an (empty) array in JAX, not a symbolic zero: slice's
// transpose pads it into zeros, which meet sqrt's infinite slope at 0/x = 0, so JAX's
// jax.vjp(lambda x: -lax.slice(sqrt(0.0 / x), (2,), (2,)), x) is NaN everywhere. The tape
// dropped the empty cotangent between two zero-size values (0, where JAX and the engine give NaN).
TEST(RefTape, ZeroSizeCotangentIsAnArray) {
  Tape t;
  Tape::Id x = t.input(Array{{3}, DType::f64, {-1.0, 2.0, 3.0}});
  Tape::Id zero = t.constant(Array{{}, DType::f64, {0.0}});
  Tape::Id q = t.binary("div", t.broadcast_in_dim(zero, {3}, {}), x);
  Tape::Id y = t.unary("neg", t.slice(t.unary("sqrt", q), {2}, {2}, {1}));
  std::vector<Array> g = t.gradients({{y, Array{{0}, DType::f64, {}}}}, {x});
  for (double v : g.at(0).data) EXPECT_TRUE(std::isnan(v));
}

// x / y at x = y = DBL_MAX: y's cotangent is -(g·y⁻²)·x = -0 in JAX; (-g·x)/(y·y) was inf/inf.
TEST(RefTape, DivDivisorCotangentAtTheLargestDouble) {
  Tape t;
  const double big = std::numeric_limits<double>::max();
  Tape::Id x = t.input(Array{{}, DType::f64, {big}}), y = t.input(Array{{}, DType::f64, {big}});
  std::vector<Array> g = t.gradients({{t.binary("div", x, y), Array{{}, DType::f64, {2.0}}}}, {x, y});
  EXPECT_EQ(g.at(1).data.at(0), 0.0);
}

TEST(RefTape, SelectCompareConvert) {
  check({values({6}, 1), values({6}, 2)}, [](Tape& t, const Ids& v) {
    Tape::Id p = t.compare(v[0], v[1], "lt");
    Tape::Id mask = t.convert(p, DType::f64);  // from pred: no gradient
    return Ids{t.select(p, t.binary("mul", v[0], v[1]), t.unary("sin", v[1])), t.binary("mul", mask, v[0]),
               t.convert(v[0], DType::f64)};
  });
  // Through a narrower float the cotangent passes unchanged (finite differences would only
  // see f32's rounding steps, so this one is checked by value).
  Tape t;
  Tape::Id x = t.input(values({2}, 1));
  Tape::Id y = t.convert(t.convert(x, DType::f32), DType::f64);
  EXPECT_EQ(t.gradients({{y, Array{{2}, DType::f64, {2, -3}}}}, {x})[0].data, (std::vector<double>{2, -3}));
}

TEST(RefTape, Structure) {
  check({values({3}, 1)}, [](Tape& t, const Ids& v) { return Ids{t.broadcast_in_dim(v[0], {2, 3, 4}, {1})}; });
  check({values({1, 3}, 2)}, [](Tape& t, const Ids& v) { return Ids{t.broadcast_in_dim(v[0], {2, 4, 3}, {1, 2})}; });
  check({values({2, 3, 4}, 3)}, [](Tape& t, const Ids& v) {
    return Ids{t.reshape(v[0], {6, 4}), t.transpose(v[0], {2, 0, 1}), t.slice(v[0], {0, 1, 0}, {2, 3, 4}, {1, 1, 3})};
  });
  check({values({2, 3}, 4), values({2, 1}, 5)}, [](Tape& t, const Ids& v) { return Ids{t.concatenate({v[0], v[1], v[0]}, 1)}; });
  check({values({4, 5}, 6), values({2, 3}, 7)}, [](Tape& t, const Ids& v) {
    return Ids{t.dynamic_slice(v[0], {1, 4}, {2, 3}), t.dynamic_update_slice(v[0], v[1], {9, -1}),
               t.dynamic_update_slice(v[0], t.unary("sin", v[1]), {1, 1})};
  });
}

TEST(RefTape, GatherScatterSort) {
  // x[i] with a repeated row (its cotangents sum) and x.at[i].add(u) with a dropped index.
  const GatherDims rows{{1}, {0}, {0}, {}, {}};
  const ScatterDims add_rows{{1}, {0}, {0}, {}, {}};
  check({values({4, 3}, 8), values({3, 3}, 9)}, [rows, add_rows](Tape& t, const Ids& v) {
    return Ids{t.gather(v[0], make({3, 1}, DType::i32, {2, 0, 2}), rows, {1, 3}, IndexMode::clip, 0),
               t.scatter_add(v[0], make({3, 1}, DType::i32, {1, 3, 9}), t.unary("sin", v[1]), add_rows,
                             IndexMode::fill_or_drop)};
  });
  // x.at[i].set(u) with a repeated row (only the last update there gets a cotangent) and a
  // dropped one; the operand's cotangent is zero where an update landed.
  check({values({4, 3}, 11), values({3, 3}, 12)}, [add_rows](Tape& t, const Ids& v) {
    return Ids{t.scatter(v[0], make({3, 1}, DType::i32, {1, 9, 1}), t.unary("sin", v[1]), add_rows,
                         IndexMode::fill_or_drop)};
  });
  // take_along_axis through batching dims; sort carrying a second operand along.
  check({values({2, 4}, 10)}, [](Tape& t, const Ids& v) {
    Ids s = t.sort({v[0], t.unary("sin", v[0])}, 1, 1);
    return Ids{t.gather(v[0], make({2, 1, 1}, DType::i32, {3, 1}), GatherDims{{}, {1}, {1}, {0}, {0}}, {1, 1},
                        IndexMode::fill_or_drop, 0),
               s[0], s[1]};
  });
}

TEST(RefTape, ReduceWindow) {
  // Max and average pooling: padded, strided, overlapping windows, with both dilations.
  const Window pool{{2, 2}, {1, 2}, {{0, 1}, {1, 0}}, {1, 1}, {1, 1}};
  const Window dilated{{2, 2}, {2, 1}, {{1, 0}, {0, 1}}, {2, 1}, {1, 2}};
  check({values({3, 4}, 13)}, [pool, dilated](Tape& t, const Ids& v) {
    return Ids{t.reduce_window_max(v[0], pool), t.reduce_window_sum(v[0], pool), t.reduce_window_sum(v[0], dilated)};
  });
  check({values({4, 3}, 14)}, [dilated](Tape& t, const Ids& v) { return Ids{t.reduce_window_max(v[0], dilated)}; });
}

TEST(RefTape, Reductions) {
  check({values({3, 4, 2}, 1)}, [](Tape& t, const Ids& v) {
    return Ids{t.reduce_sum(v[0], {0, 2}), t.reduce_max(v[0], {1}), t.reduce_max(v[0], {0, 1, 2}),
               t.reduce_min(v[0], {2, 0}), t.reduce_min(v[0], {})};
  });
  // Ties share the cotangent evenly.
  Tape t;
  Tape::Id x = t.input(Array{{2, 3}, DType::f64, {1, 5, 5, 2, 2, 2}});
  Tape::Id m = t.reduce_max(x, {1});
  Array g = t.gradients({{m, Array{{2}, DType::f64, {6, 9}}}}, {x})[0];
  EXPECT_EQ(g.data, (std::vector<double>{0, 3, 3, 3, 3, 3}));
  // reduce_min's ties too (JAX's reduce_chooser rule), and is_finite passes nothing back.
  Tape::Id lo = t.reduce_min(x, {1});
  Tape::Id fin = t.select(t.is_finite(x), x, x);
  std::vector<Array> gl = t.gradients({{lo, Array{{2}, DType::f64, {6, 9}}}, {fin, Array{{2, 3}, DType::f64, {1, 1, 1, 1, 1, 1}}}}, {x});
  EXPECT_EQ(gl[0].data, (std::vector<double>{7, 1, 1, 4, 4, 4}));
}

// reduce_prod against finite differences, then at zeros: one zero's position gets the product
// of the others, the rest 0; two zeros give zeros everywhere.
TEST(RefTape, ReduceProd) {
  check({values({3, 4, 2}, 1)}, [](Tape& t, const Ids& v) {
    return Ids{t.reduce_prod(v[0], {0, 2}), t.reduce_prod(v[0], {1}), t.reduce_prod(v[0], {})};
  });
  Tape t;
  Tape::Id x = t.input(Array{{2, 3}, DType::f64, {2, 0, 3, 0, 5, 0}});
  Array g = t.gradients({{t.reduce_prod(x, {1}), Array{{2}, DType::f64, {10, 1}}}}, {x})[0];
  EXPECT_EQ(g.data, (std::vector<double>{0, 60, 0, 0, 0, 0}));
}

TEST(RefTape, RevPadCumsum) {
  check({values({3, 4}, 1), values({}, 2)}, [](Tape& t, const Ids& v) {
    return Ids{t.rev(v[0], {1}), t.rev(v[0], {0, 1}), t.pad(v[0], v[1], {1, -1}, {-1, 2}, {0, 2}),
               t.pad(v[0], v[1], {0, 0}, {0, 0}, {1, 0}), t.cumsum(v[0], 1, false), t.cumsum(v[0], 0, true)};
  });
}

TEST(RefTape, DotGeneral) {
  check({values({3, 4}, 1), values({4, 5}, 2)}, [](Tape& t, const Ids& v) {
    return Ids{t.dot_general(v[0], v[1], DotDims{{1}, {0}, {}, {}}, DType::f64)};
  });
  check({values({2, 4, 3}, 3), values({2, 5, 4}, 4)}, [](Tape& t, const Ids& v) {
    return Ids{t.dot_general(v[0], v[1], DotDims{{1}, {2}, {0}, {0}}, DType::f64)};
  });
  check({values({4, 3, 2}, 5), values({2, 4}, 6)}, [](Tape& t, const Ids& v) {
    return Ids{t.dot_general(v[0], v[1], DotDims{{0, 2}, {1, 0}, {}, {}}, DType::f64)};
  });
}

TEST(RefTape, TwoLayerMlpAndReuse) {
  check({values({3, 4}, 1), values({4, 4}, 2), values({4, 2}, 3)}, [](Tape& t, const Ids& v) {
    DotDims mm{{1}, {0}, {}, {}};
    Tape::Id h = t.unary("tanh", t.dot_general(v[0], v[1], mm, DType::f64));
    Tape::Id o = t.dot_general(h, v[2], mm, DType::f64);
    return Ids{t.reduce_sum(t.binary("mul", o, o), {0, 1}), t.binary("add", h, h)};  // h used twice
  });
}

TEST(RefTape, ConstantsAndUnreachedInputsGetNoGradient) {
  Tape t;
  Tape::Id x = t.input(values({3}, 1)), y = t.input(values({3}, 2));
  Tape::Id c = t.constant(values({3}, 3));
  Tape::Id out = t.binary("mul", x, c);
  std::vector<Array> g = t.gradients({{out, Array{{3}, DType::f64, {1, 1, 1}}}}, {x, y, c});
  EXPECT_EQ(g[0].data, t.value(c).data);
  EXPECT_EQ(g[1].data, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(g[2].data, (std::vector<double>{0, 0, 0}));
  EXPECT_THROW(t.gradients({{out, Array{{2}, DType::f64, {1, 1}}}}, {x}), std::invalid_argument);
}

}  // namespace
}  // namespace tandem::ref
