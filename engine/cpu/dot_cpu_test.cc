// CPU dot_general: every layout path (zero-copy, transposed, permuted, batched) agrees with
// a plain triple loop; splits are exact and guarded; narrow presets really lose precision.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/core/error.h"
#include "engine/core/test_values.h"
#include "engine/cpu/dot_cpu.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"

namespace tandem {
namespace {

Tensor run_dot(const Tensor& l, const Tensor& r, const DotDims& d, const std::string& prec,
               std::optional<DType> pref = std::nullopt) {
  Builder b;
  Value x = b.input(l.shape(), l.dtype()), y = b.input(r.shape(), r.dtype());
  Program p = b.build({dot_general(x, y, d, prec, pref)});
  return Executor().run(p, {l, r})[0];
}

// out[b,m,n] for lhs [B,M,K], rhs [B,K,N] in f64.
std::vector<double> naive_bmm(const std::vector<double>& l, const std::vector<double>& r, int B, int M, int K, int N) {
  std::vector<double> o(size_t(B * M * N), 0);
  for (int b = 0; b < B; ++b)
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n)
        for (int k = 0; k < K; ++k) o[(b * M + m) * N + n] += l[(b * M + m) * K + k] * r[(b * K + k) * N + n];
  return o;
}

TEST(DotCpu, AllLayoutsMatchNaive) {
  const int B = 2, M = 5, K = 7, N = 3;
  auto l = random_values(B * M * K, 1), r = random_values(B * K * N, 2);
  auto want = naive_bmm(l, r, B, M, K, N);
  Tensor L = Tensor::from_f64(l, {B, M, K}, DType::f64), R = Tensor::from_f64(r, {B, K, N}, DType::f64);
  auto got = run_dot(L, R, {{2}, {1}, {0}, {0}}, "HIGHEST").to_f64();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
  // Same product from transposed operand layouts: lhs [B,K,M], rhs [N,B,K].
  Builder tb;
  Value lx = tb.input({B, M, K}, DType::f64), rx = tb.input({B, K, N}, DType::f64);
  Program tp = tb.build({transpose(lx, {0, 2, 1}), transpose(rx, {2, 0, 1})});
  auto t = Executor().run(tp, {L, R});
  auto got2 = run_dot(t[0], t[1], {{1}, {2}, {0}, {1}}, "HIGHEST").to_f64();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got2[i], want[i], 1e-12);
  // f32, zero-copy sgemm path with a transposed rhs stored [B,N,K].
  Builder fb;
  Value rf = fb.input({B, K, N}, DType::f32);
  Tensor r_bnk = Executor().run(fb.build({transpose(rf, {0, 2, 1})}), {Tensor::from_f64(r, {B, K, N}, DType::f32)})[0];
  auto got3 = run_dot(Tensor::from_f64(l, {B, M, K}, DType::f32), r_bnk, {{2}, {2}, {0}, {0}}, "F32_F32_F32").to_f64();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got3[i], want[i], 1e-5);
}

TEST(DotCpu, SplitsAreExactAndGuarded) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1e3f, 1e3f);
  for (int i = 0; i < 10000; ++i) {
    float x = u(rng), s[3];
    cpu::split_value(x, SplitFormat::bf16, 3, s);
    EXPECT_EQ(round_to_bf16(s[0]), s[0]);
    EXPECT_EQ(round_to_bf16(s[1]), s[1]);
    EXPECT_EQ(round_to_bf16(s[2]), s[2]);
    EXPECT_EQ(double(s[0]) + double(s[1]) + double(s[2]), double(x));  // 24 bits in 3×8
    cpu::split_value(x, SplitFormat::tf32, 2, s);
    // 24 bits do not fit in 2×11: the lo term is rounded, leaving at most 2^-21 relative.
    EXPECT_LE(std::abs(double(s[0]) + double(s[1]) - double(x)), 0x1p-21 * std::abs(double(x)));
  }
  float s[3];
  cpu::split_value(INFINITY, SplitFormat::bf16, 3, s);
  EXPECT_EQ(s[0], INFINITY);
  EXPECT_EQ(s[1], 0.0f);
  EXPECT_EQ(s[2], 0.0f);
}

TEST(DotCpu, InfPropagatesThroughSplitsWithoutNaN) {
  Tensor l = Tensor::from_f64({INFINITY, 1.0}, {1, 2}, DType::f32);
  Tensor r = Tensor::from_f64({1.0, 2.0}, {2, 1}, DType::f32);
  for (const char* alg : {"BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9", "TF32_TF32_F32_X3"}) {
    double v = run_dot(l, r, {{1}, {0}, {}, {}}, alg).to_f64()[0];
    EXPECT_EQ(v, INFINITY) << alg;
  }
  Tensor n = Tensor::from_f64({NAN, 1.0}, {1, 2}, DType::f32);
  EXPECT_TRUE(std::isnan(run_dot(n, r, {{1}, {0}, {}, {}}, "BF16_BF16_F32_X6").to_f64()[0]));
}

TEST(DotCpu, ReducedPresetsReallyReducePrecision) {
  // 1 + 2^-10 is not a bf16 value: BF16_BF16_F32 must see 1, F32 must see it exactly.
  Tensor l = Tensor::from_f64({1.0 + 0x1p-10}, {1, 1}, DType::f32);
  Tensor r = Tensor::from_f64({1.0}, {1, 1}, DType::f32);
  EXPECT_EQ(run_dot(l, r, {{1}, {0}, {}, {}}, "BF16_BF16_F32").to_f64()[0], 1.0);
  EXPECT_EQ(run_dot(l, r, {{1}, {0}, {}, {}}, "TF32_TF32_F32").to_f64()[0], 1.0 + 0x1p-10);
  EXPECT_EQ(run_dot(l, r, {{1}, {0}, {}, {}}, "F32_F32_F32").to_f64()[0], 1.0 + 0x1p-10);
  EXPECT_EQ(run_dot(l, r, {{1}, {0}, {}, {}}, "BF16_BF16_F32_X3").to_f64()[0], 1.0 + 0x1p-10);
  // f16 accumulator: 2048 + 1 + 1 + ... stays 2048 (ulp 2 at 2048, ties to even).
  std::vector<double> ones(64, 1.0);
  ones[0] = 2048;
  Tensor a = Tensor::from_f64(ones, {1, 64}, DType::f32);
  Tensor c = Tensor::from_f64(std::vector<double>(64, 1.0), {64, 1}, DType::f32);
  EXPECT_EQ(run_dot(a, c, {{1}, {0}, {}, {}}, "F16_F16_F16").to_f64()[0], 2048.0);
  EXPECT_EQ(run_dot(a, c, {{1}, {0}, {}, {}}, "F16_F16_F32").to_f64()[0], 2048.0 + 63);
}

TEST(DotCpu, OutputDtypeRules) {
  Tensor l = Tensor::from_f64({1, 2}, {1, 2}, DType::bf16);
  Tensor r = Tensor::from_f64({3, 4}, {2, 1}, DType::f32);
  EXPECT_EQ(run_dot(l, r, {{1}, {0}, {}, {}}, "DEFAULT").dtype(), DType::f32);  // promoted
  Tensor lb = Tensor::from_f64({1, 2}, {1, 2}, DType::bf16), rb = Tensor::from_f64({3, 4}, {2, 1}, DType::bf16);
  EXPECT_EQ(run_dot(lb, rb, {{1}, {0}, {}, {}}, "F32_F32_F32").dtype(), DType::bf16);
  EXPECT_EQ(run_dot(lb, rb, {{1}, {0}, {}, {}}, "F32_F32_F32", DType::f32).dtype(), DType::f32);
  EXPECT_EQ(run_dot(lb, rb, {{1}, {0}, {}, {}}, "F32_F32_F32", DType::f32).to_f64()[0], 11.0);
}

// As in JAX: a precision (not a preset) with preferred_element_type=f64 accumulates in f64,
// so f16 products (exact in f64) sum exactly; an f32 accumulator would lose the 1 next to
// 2^25 (found by tools/oracles/program_vs_jax.py, docs/JAX_ORACLE.md).
TEST(DotCpu, PreferredF64AccumulatesInF64) {
  Tensor l = Tensor::from_f64({2048, 1, -2048}, {1, 3}, DType::f16);
  Tensor r = Tensor::from_f64({16384, 1, 16384}, {3, 1}, DType::f16);
  for (const char* prec : {"DEFAULT", "HIGHEST"})
    EXPECT_EQ(run_dot(l, r, {{1}, {0}, {}, {}}, prec, DType::f64).to_f64()[0], 1.0) << prec;
}

TEST(DotCpu, ZeroSizeDims) {
  Tensor l = Tensor::zeros({3, 0}, DType::f32), r = Tensor::zeros({0, 2}, DType::f32);
  Tensor o = run_dot(l, r, {{1}, {0}, {}, {}}, "DEFAULT");
  EXPECT_EQ(o.shape(), (Shape{3, 2}));
  EXPECT_EQ(o.to_f64(), std::vector<double>(6, 0.0));
  Tensor e = run_dot(Tensor::zeros({0, 4}, DType::f32), Tensor::zeros({4, 2}, DType::f32),
                     {{1}, {0}, {}, {}}, "BF16_BF16_F32_X3");
  EXPECT_EQ(e.shape(), (Shape{0, 2}));
}

TEST(DotCpu, IntegerDot) {
  Tensor l = Tensor::from_f64({1, 2, 3, 4}, {2, 2}, DType::i32);
  Tensor r = Tensor::from_f64({5, 6, 7, 8}, {2, 2}, DType::i32);
  EXPECT_EQ(run_dot(l, r, {{1}, {0}, {}, {}}, "DEFAULT").to_f64(), (std::vector<double>{19, 22, 43, 50}));
  EXPECT_THROW(run_dot(l, r, {{1}, {0}, {}, {}}, "BF16_BF16_F32"), Error);
}

}  // namespace
}  // namespace tandem
