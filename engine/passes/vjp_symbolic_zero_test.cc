// The vjp pass's symbolic zero cotangents, where JAX's vjp is finite and an instantiated zero
// met an infinite factor (0 * inf = NaN): an operand of a checkpoint, a scan or a cond that no
// nonzero output cotangent reaches gets none (ct_dependence.h), and two rules compute in the
// order JAX's (XLA's) does. Each program is a reduction of a `tandem fuzz` sample that
// tools/oracles/fuzz_case_vs_jax.py found differing from JAX (docs/FUZZING.md); the expected
// values are JAX's (jax.jit(jax.vjp)) for the same function.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>

#include "engine/passes/vjp.h"
#include "engine/prims/checkpoint.h"
#include "engine/prims/cond.h"

namespace tandem {
namespace {

using V = std::vector<Value>;
const double kInf = std::numeric_limits<double>::infinity(), kNaN = std::nan("");

// The cotangents of `p` at `in` for output cotangents `cts`, as f64.
std::vector<std::vector<double>> grads(const Program& p, const std::vector<Tensor>& in, const std::vector<Tensor>& cts) {
  VjpRun r = run_vjp(vjp(p), in, cts);
  std::vector<std::vector<double>> g;
  for (const Tensor& t : r.cotangents) g.push_back(t.to_f64());
  return g;
}

Tensor f32(const std::vector<double>& v) { return Tensor::from_f64(v, {int64_t(v.size())}, DType::f32); }
Value stop_gradient(Builder& b, Value x) { return b.bind("stop_gradient", {x}, {})[0]; }

// (a, x) -> (checkpoint(stop_gradient(a * x)), a): the checkpoint's operand a * x gets no
// cotangent in JAX (stop_gradient's tangent is a symbolic zero), so x = inf does not turn a's
// cotangent into NaN; an instantiated zero from the checkpoint's backward did (0 * inf).
TEST(VjpSymbolicZero, CheckpointOperandReadOnlyThroughStopGradient) {
  const AType s{{}, DType::f32}, x{{2}, DType::f32};
  Program body = trace({x}, [](Builder& b, const V& v) { return V{stop_gradient(b, v[0])}; });
  Program p = trace({s, x}, [&](Builder&, const V& v) {
    Value m = broadcast_in_dim(v[0], {2}, {}) * v[1];
    return V{checkpoint(body, {m}, "dots_saveable")[0], v[0]};
  });
  auto g = grads(p, {Tensor::scalar(1.5, DType::f32), f32({kInf, 2.0})}, {f32({1.0, 1.0}), Tensor::scalar(0.75, DType::f32)});
  EXPECT_EQ(g.at(0).at(0), 0.75);  // a's: output 1's cotangent alone
}

// sqrt(x - x) (0, whose sqrt has an infinite slope) is a scan const the body never reads: its
// cotangent is JAX's symbolic zero, not zeros accumulated over the steps (0 * inf = NaN).
TEST(VjpSymbolicZero, ScanConstTheBodyNeverReads) {
  const AType x{{2}, DType::f32};
  Program body = trace({x, x}, [](Builder&, const V& v) { return V{v[1] * 2.0, v[1]}; });  // (c, carry) -> (carry, y)
  Program p = trace({x}, [&](Builder&, const V& v) {
    V r = scan(body, {sqrt(v[0] - v[0])}, {v[0]}, {}, 3);
    return V{r[0]};
  });
  auto g = grads(p, {f32({1.0, -2.0})}, {f32({1.0, 1.0})});
  EXPECT_EQ(g.at(0), (std::vector<double>{8.0, 8.0}));  // 2^3 through the carry
}

// Two carries (y, sqrt(y)) passed through unchanged, only the first used: at y < 0 the second
// carry's cotangent is a symbolic zero in JAX (nothing reads its output), so sqrt(y) = NaN
// does not reach y's cotangent; instantiated, 0 / (2 sqrt(y)) was NaN.
TEST(VjpSymbolicZero, ScanCarryWhoseOutputNothingReads) {
  const AType s{{}, DType::f32};
  Program body = trace({s, s}, [](Builder&, const V& v) { return V{v[0], v[1]}; });
  Program p = trace({s}, [&](Builder&, const V& v) {
    V r = scan(body, {}, {v[0], sqrt(v[0])}, {}, 2);
    return V{r[0] * 3.0};
  });
  auto g = grads(p, {Tensor::scalar(-0.25, DType::f32)}, {Tensor::scalar(1.0, DType::f32)});
  EXPECT_EQ(g.at(0).at(0), 3.0);
}

// Carries (k0, k1) -> (sqrt(k1), tanh(k1)), ys tanh(k1), only the ys used: k0 is dead, so in
// the body its cotangent is JAX's symbolic zero and sqrt(k1 = 0)'s infinite slope never meets
// it; an instantiated zero made 0 * inf = NaN in k1's live cotangent.
TEST(VjpSymbolicZero, ScanDeadCarryInsideTheBody) {
  const AType one{{1}, DType::f32}, s{{}, DType::f32};
  Program body = trace({one, s}, [](Builder&, const V& v) {
    return V{broadcast_in_dim(sqrt(v[1]), {1}, {}), tanh(v[1]), tanh(v[1])};
  });
  Program p = trace({one, s}, [&](Builder&, const V& v) { return V{scan(body, {}, {v[0], v[1]}, {}, 2)[2]}; });
  auto g = grads(p, {f32({1.0}), Tensor::scalar(0.0, DType::f32)}, {f32({1.0, 1.0})});
  EXPECT_EQ(g.at(1).at(0), 2.0);  // jax.jit(jax.vjp) of the same lax.scan
}

// A cond whose branches return operand 0 only: operand 1 (sqrt(x - x) = 0) gets no cotangent
// in JAX, where zeros from the branches' backward met sqrt's infinite slope (NaN).
TEST(VjpSymbolicZero, CondOperandNoBranchReturns) {
  const AType x{{2}, DType::f32};
  std::vector<Program> br = {trace({x, x}, [](Builder&, const V& v) { return V{v[0] * 2.0}; }),
                             trace({x, x}, [](Builder&, const V& v) { return V{v[0] * 3.0}; })};
  Program p = trace({x}, [&](Builder& b, const V& v) {
    return V{cond(b.literal(1, DType::i32), br, {v[0], sqrt(v[0] - v[0])})[0]};
  });
  auto g = grads(p, {f32({1.0, 4.0})}, {f32({1.0, 1.0})});
  EXPECT_EQ(g.at(0), (std::vector<double>{3.0, 3.0}));
}

// reduce_max of [NaN, 1, 2] is NaN and no position equals it: JAX (XLA selects where its
// jaxpr multiplies by the converted indicator) gives 0 there, not g/0 · 0 = NaN.
TEST(VjpSymbolicZero, ReduceMaxOfNaNGivesZeros) {
  const AType x{{3}, DType::f32};
  Program p = trace({x}, [](Builder&, const V& v) { return V{reduce_max(v[0], {0})}; });
  auto g = grads(p, {f32({kNaN, 1.0, 2.0})}, {Tensor::scalar(1.0, DType::f32)});
  EXPECT_EQ(g.at(0), (std::vector<double>{0.0, 0.0, 0.0}));
}

// x / y at x = y = FLT_MAX: JAX transposes (-t·x)·y⁻² as g·y⁻² first (y·y overflows, y⁻² = 0),
// so y's cotangent is -0; g·x first overflowed to inf, and inf / inf was NaN.
TEST(VjpSymbolicZero, DivDivisorCotangentAtTheLargestFloat) {
  const AType s{{}, DType::f32};
  Program p = trace({s, s}, [](Builder&, const V& v) { return V{v[0] / v[1]}; });
  auto g = grads(p, {Tensor::scalar(FLT_MAX, DType::f32), Tensor::scalar(FLT_MAX, DType::f32)},
                 {Tensor::scalar(2.0, DType::f32)});
  EXPECT_EQ(g.at(1).at(0), 0.0);
  EXPECT_FALSE(std::isnan(g.at(0).at(0)));
}

}  // namespace
}  // namespace tandem
