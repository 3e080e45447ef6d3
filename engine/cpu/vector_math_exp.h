// exp, logistic (sigmoid) and tanh in f32 as branch-free code the compiler vectorizes, over
// the whole float range. libm's expf/tanhf are scalar calls (≈ 15 ns an element for tanhf
// here): the vmapped MLP spent two thirds of its time in them, and the CPU LSTM's gate loop
// five per hidden unit.
//
// exp: Cephes' expf — n = round(x / ln 2) by the 1.5·2^23 shift trick, r = x - n ln 2 with
// ln 2 in two parts (n · the first part is exact for |n| ≤ 256), a degree-6 polynomial for
// e^r on [-ln2/2, ln2/2], then p · 2^n as two exact power-of-two factors so that the results
// that overflow to +Inf or fall into the subnormals round once, as libm's do.
// logistic: e / (1 + e) or 1 / (1 + e) with e = exp(-|x|) ≤ 1: no overflow, and tiny results
// (x < -87) keep their relative accuracy down into the subnormals.
// tanh: Cephes' tanhf — an odd degree-11 polynomial below |x| = 0.625, 1 - 2 / (e^{2|x|} + 1)
// above, with x's sign.
//
// Max error against libm in f64 (vector_math_exp_test: every 241st float bit pattern, a dense
// sweep of [-30, 30] and of the edges, subnormals and the saturation edges): exp 1 ulp, logistic 2.5 ulp, tanh
// 1.5 ulp — the bounds the test asserts; it measured 0.99, 2.30 and 1.30 (glibc's own tanhf:
// 2.16 ulp on the same points). ±0, ±Inf and
// NaN behave as libm's: exp(-Inf) = 0, exp(+Inf) = Inf, logistic(±Inf) = 1 / 0, tanh(±Inf) =
// ±1, tanh(±0) = ±0, NaN in → NaN out; no input converts NaN or an out-of-range float to int.
//
// Selects are written as ?: on floats; the files that need them vectorized compile with
// -fno-trapping-math (engine/CMakeLists.txt), since GCC otherwise keeps a comparison that
// could raise FE_INVALID on NaN as a branch.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>

namespace tandem::cpu {

inline float exp_f(float x) {
  // e^89 overflows and e^-104 rounds to 0 in f32; the clamps keep n in [-150, 128], so both
  // halves of 2^n below are normal floats. NaN fails both comparisons and passes through.
  float xc = x > 89.0f ? 89.0f : x;
  xc = xc < -104.0f ? -104.0f : xc;
  // n from a NaN-free copy (NaN → 0): r below still takes xc, so NaN reaches the result.
  const float xn = xc == xc ? xc : 0.0f;
  constexpr float kShift = 12582912.0f;  // 1.5·2^23: adding it rounds to an integer in the low bits
  const float t = xn * 1.44269504088896341f + kShift;
  const int32_t n = int32_t(std::bit_cast<uint32_t>(t) - std::bit_cast<uint32_t>(kShift));
  const float fn = t - kShift;  // the same integer as n, as a float (exact)
  float r = xc - fn * 0.693359375f;  // ln 2 = 0.693359375 - 2.12194440e-4
  r = r + fn * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  const int32_t n1 = n >> 1, n2 = n - n1;  // each in [-75, 64]
  const float s1 = std::bit_cast<float>(uint32_t(n1 + 127) << 23);
  const float s2 = std::bit_cast<float>(uint32_t(n2 + 127) << 23);
  return p * s1 * s2;  // p · s1 is exact; · s2 rounds once (overflow or subnormal)
}

inline float logistic_f(float x) {
  const float e = exp_f(-std::fabs(x));  // in (0, 1]; NaN stays NaN
  const float num = x >= 0.0f ? 1.0f : e;
  return num / (1.0f + e);
}

inline float tanh_f(float x) {
  const float ax = std::fabs(x);
  const float z = x * x;
  float small = -5.70498872745e-3f;
  small = small * z + 2.06390887954e-2f;
  small = small * z - 5.37397155531e-2f;
  small = small * z + 1.33314422036e-1f;
  small = small * z - 3.33332819422e-1f;
  small = small * z * x + x;
  // e^{2|x|} is +Inf from |x| ≈ 44.4 on, and 2 / Inf = 0: saturates to exactly 1.
  const float large = 1.0f - 2.0f / (exp_f(2.0f * ax) + 1.0f);
  // tanh is odd, and both branches have x's sign already except at -0 (where the polynomial's
  // sum gives +0): the sign is set from x, as libm's tanhf(-0) = -0.
  return std::copysign(ax < 0.625f ? small : large, x);  // NaN: the large branch, NaN
}

// y[i] = f(x[i]) for n elements (x and y may alias); the same bits as the inline functions.
void exp_f32(const float* x, float* y, int64_t n);
void logistic_f32(const float* x, float* y, int64_t n);
void tanh_f32(const float* x, float* y, int64_t n);

}  // namespace tandem::cpu
