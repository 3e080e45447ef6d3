// The narrow-accumulator loop (dot_narrow.h) against its definition, one output at a time:
// acc = round_to_f16 / round_to_bf16 (half.h) of acc + a·b, k from 0. Same bits (NaN payloads
// included) on every shape, layout and value class tried, and the branch-free roundings equal
// half.h's on every f32 boundary pattern and a large sample of the rest.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "engine/core/half.h"
#include "engine/cpu/dot_narrow.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"

namespace tandem::cpu {
namespace {

void expect_same_rounding(uint32_t bits) {
  const float x = std::bit_cast<float>(bits);
  ASSERT_EQ(std::bit_cast<uint32_t>(round_to_f16_select(x)), std::bit_cast<uint32_t>(round_to_f16(x))) << std::hex << bits;
  ASSERT_EQ(std::bit_cast<uint32_t>(round_to_bf16_select(x)), std::bit_cast<uint32_t>(round_to_bf16(x))) << std::hex << bits;
}

// Every top-16-bit pattern with the low bits at each rounding edge of both formats, every 61st
// pattern of f16's subnormal range and the region above it, and 10^7 random patterns.
TEST(DotNarrow, SelectRoundingsEqualHalfH) {
  const uint32_t edges[] = {0, 1, 0xfff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x3000, 0x7fff, 0x8000, 0x8001, 0xefff, 0xf000, 0xffff};
  for (uint32_t hi = 0; hi < 0x10000; ++hi)
    for (uint32_t lo : edges) expect_same_rounding(hi << 16 | lo);
  for (uint32_t bits = 0x32000000; bits < 0x39000000; bits += 61) {
    expect_same_rounding(bits);
    expect_same_rounding(bits | 0x80000000u);
  }
  std::mt19937 rng(5);
  for (int i = 0; i < 10000000; ++i) expect_same_rounding(uint32_t(rng()));
}

// The definition: one output at a time, a scalar loop.
std::vector<float> defined(const std::vector<float>& a, const std::vector<float>& b, int64_t m, int64_t n, int64_t k,
                           float (*round)(float)) {
  std::vector<float> c(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t kk = 0; kk < k; ++kk) acc = round(acc + a[size_t(i * k + kk)] * b[size_t(kk * n + j)]);
      c[size_t(i * n + j)] = acc;
    }
  return c;
}

// Values of every class a 16-bit operand holds: ordinary, tiny (products underflow f32), huge
// (sums overflow the accumulator), zeros of both signs, Inf and NaN.
std::vector<float> operand(size_t count, float (*round)(float), std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-2, 2);
  std::vector<float> v(count);
  for (float& x : v) {
    const uint32_t kind = rng() % 40;
    x = kind == 0 ? std::ldexp(u(rng), -120) : kind == 1 ? std::ldexp(u(rng), 14) : kind == 2 ? -0.0f
        : kind == 3 ? INFINITY : kind == 4 ? std::bit_cast<float>(uint32_t(0x7fa00000u | (rng() & 0x3fe000u))) : u(rng);
    x = round(x);
  }
  return v;
}

TEST(DotNarrow, LoopEqualsTheDefinitionBitForBit) {
  std::mt19937 rng(9);
  for (NarrowFormat f : {NarrowFormat::f16, NarrowFormat::bf16}) {
    float (*round)(float) = f == NarrowFormat::f16 ? round_to_f16 : round_to_bf16;
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1}, {3, 5, 7}, {4, 129, 33}, {2, 300, 64}, {5, 128, 1}, {2, 7, 0}}) {
      const std::vector<float> a = operand(size_t(m * k), round, rng), b = operand(size_t(k * n), round, rng);
      std::vector<float> c(size_t(m * n), 123.0f);
      narrow_matmul(a.data(), k, b.data(), n, c.data(), m, n, k, f);
      const std::vector<float> want = defined(a, b, m, n, k, round);
      for (size_t i = 0; i < c.size(); ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(c[i]), std::bit_cast<uint32_t>(want[i])) << m << "x" << n << "x" << k << " at " << i;
    }
  }
}

// Through dot_general, with the lhs stored transposed and the rhs batched and transposed: the
// copies the loop reads are the operands' values in row-major order.
TEST(DotNarrow, TransposedAndBatchedOperandsThroughDotGeneral) {
  std::mt19937 rng(3);
  const int64_t B = 2, M = 3, K = 40, N = 150;
  for (const char* preset : {"F16_F16_F16", "BF16_BF16_BF16"}) {
    float (*round)(float) = std::string(preset) == "F16_F16_F16" ? round_to_f16 : round_to_bf16;
    const std::vector<float> l = operand(size_t(B * K * M), round, rng), r = operand(size_t(B * N * K), round, rng);
    Builder bld;  // lhs [B, K, M], rhs [B, N, K]: contract K, batch B
    Value x = bld.input({B, K, M}, DType::f32), y = bld.input({B, N, K}, DType::f32);
    Program p = bld.build({dot_general(x, y, DotDims{{1}, {2}, {0}, {0}}, preset)});
    auto f32 = [](const std::vector<float>& v, const Shape& s) {
      return Tensor::from_f64(std::vector<double>(v.begin(), v.end()), s, DType::f32);
    };
    const Tensor got = Executor().run(p, {f32(l, {B, K, M}), f32(r, {B, N, K})})[0];
    for (int64_t b = 0; b < B; ++b) {
      std::vector<float> a(size_t(M * K)), bb(size_t(K * N));
      for (int64_t i = 0; i < M; ++i)
        for (int64_t kk = 0; kk < K; ++kk) a[size_t(i * K + kk)] = l[size_t((b * K + kk) * M + i)];
      for (int64_t kk = 0; kk < K; ++kk)
        for (int64_t j = 0; j < N; ++j) bb[size_t(kk * N + j)] = r[size_t((b * N + j) * K + kk)];
      const std::vector<float> want = defined(a, bb, M, N, K, round);
      for (int64_t i = 0; i < M * N; ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(got.data<float>()[b * M * N + i]), std::bit_cast<uint32_t>(want[size_t(i)])) << preset;
    }
  }
}

}  // namespace
}  // namespace tandem::cpu
