// round_to_tf32 (engine/core/half.h) bit for bit against the reference's round-to-nearest-even (reference/rounding.h,
// written from IEEE 754 in f64): the one __host__ __device__ function both the CPU emulation of the TF32 presets and
// the CUDA kernel that rounds cuBLAS's TF32 operands (engine/cuda/dot_kernels.cu) call, so this CPU test covers the
// GPU's rounding too. Inputs: exact ties of both parities, NaN payloads, infinities, subnormals, the overflow edge at
// the largest float, and random bit patterns. The same inputs are shown to catch a truncating and a round-half-away
// conversion, so the comparison can fail.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "engine/core/half.h"
#include "reference/rounding.h"

namespace tandem {
namespace {

const ref::FloatFormat kTf32{11, -126, 127};  // 10 stored mantissa bits, f32's exponent range

// Bit patterns that pin down the rounding rule, then random ones.
std::vector<uint32_t> probe_bits() {
  std::vector<uint32_t> v = {
      0x00000000u, 0x80000000u,              // ±0
      0x7f800000u, 0xff800000u,              // ±Inf
      0x7fc00000u, 0xffc00000u,              // quiet NaN
      0x7f800001u, 0x7f801000u, 0xff800fffu, // NaNs whose payload is only in the dropped bits
      0x7f7fffffu, 0xff7fffffu,              // largest float: rounds past tf32's max, to Inf
      0x7f7fe000u, 0x7f7fefffu, 0x7f7ff000u, // tf32's max, just under and at the overflow tie
      0x00000001u, 0x80000001u,              // smallest subnormal: rounds to ±0
      0x00001000u, 0x00003000u,              // subnormal ties, kept part even / odd
      0x007ff000u, 0x007fffffu,              // largest subnormals: tie and carry into the normals
      0x3f801000u, 0x3f803000u,              // 1 + half a tf32 ulp (tie, even) and 1 + 1.5 ulp (odd)
      0xbf801000u, 0xbf803000u, 0x3f800fffu, 0x3f801001u,
  };
  std::mt19937 gen(12345);
  for (int i = 0; i < 1000000; ++i) v.push_back(uint32_t(gen()));
  for (int i = 0; i < 100000; ++i) v.push_back((uint32_t(gen()) & ~0x1fffu) | 0x1000u);  // ties
  return v;
}

// The first input where `round` differs from the reference, or -1.
int64_t first_mismatch(const std::vector<uint32_t>& bits, const std::function<float(float)>& round) {
  for (size_t i = 0; i < bits.size(); ++i) {
    float x = f32_from_bits(bits[i]);
    float got = round(x);
    double want = ref::round_to_format(kTf32, double(x));
    bool same = std::isnan(want) ? std::isnan(got) : f32_bits(got) == f32_bits(float(want));
    if (!same) return int64_t(i);
  }
  return -1;
}

TEST(Tf32Rounding, MatchesTheReferenceBitForBit) {
  std::vector<uint32_t> bits = probe_bits();
  int64_t i = first_mismatch(bits, round_to_tf32);
  if (i >= 0) {
    float x = f32_from_bits(bits[size_t(i)]);
    FAIL() << std::hex << "input 0x" << bits[size_t(i)] << ": round_to_tf32 gives 0x" << f32_bits(round_to_tf32(x))
           << ", the reference 0x" << f32_bits(float(ref::round_to_format(kTf32, double(x))));
  }
}

TEST(Tf32Rounding, TheInputsCatchTruncationAndRoundHalfAway) {
  std::vector<uint32_t> bits = probe_bits();
  auto truncate = [](float x) {
    uint32_t u = f32_bits(x);
    return (u & 0x7f800000u) == 0x7f800000u ? x : f32_from_bits(u & ~0x1fffu);
  };
  auto half_away = [](float x) {
    uint32_t u = f32_bits(x);
    return (u & 0x7f800000u) == 0x7f800000u ? x : f32_from_bits((u + 0x1000u) & ~0x1fffu);
  };
  EXPECT_GE(first_mismatch(bits, truncate), 0);
  EXPECT_GE(first_mismatch(bits, half_away), 0);
  // Masking the dropped bits of a NaN can make it an Inf: a NaN rule that forgets NaN fails.
  auto nan_blind = [](float x) { return f32_from_bits((f32_bits(x) + 0xfffu + ((f32_bits(x) >> 13) & 1u)) & ~0x1fffu); };
  EXPECT_GE(first_mismatch({0x7f800001u}, nan_blind), 0);
}

}  // namespace
}  // namespace tandem
