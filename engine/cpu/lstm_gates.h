// The LSTM's gate nonlinearities as branch-free f32 code the compiler vectorizes: libm's
// expf/tanhf are scalar calls, and in the CPU LSTM's fused step loop five of them per hidden
// unit cost about as much as the step's GEMM. exp is Cephes' expf (range reduction by
// ln 2 in two parts, degree-6 polynomial, 2^n by exponent bits; within 2 ulp), tanh is
// Cephes' tanhf (odd polynomial below 0.625, 1 - 2/(e^2|x| + 1) above). Inputs are clamped so
// 2^n stays a normal float; NaN propagates (never converted to int), ±Inf saturate.
#pragma once
#include <cstdint>
#include <cstring>

namespace tandem::cpu::gates {

inline float exp_f(float x) {
  x = x > 88.0f ? 88.0f : x;    // e^88 ≈ 1.65e38 < FLT_MAX
  x = x < -87.0f ? -87.0f : x;  // e^-87 ≈ 1.6e-38 > FLT_MIN: n stays >= -126
  // x is NaN here only if the input was (both comparisons are false): the exponent n comes
  // from a copy where NaN becomes 88, as converting NaN to int is undefined behaviour (and
  // n + 127 could then overflow), while r below still takes x, so NaN propagates to the result.
  // One compare-and-blend, vectorized like the clamps.
  const float xn = x < 88.0f ? x : 88.0f;
  const float fx = xn * 1.44269504088896341f;
  const int32_t n = int32_t(fx + (fx >= 0.0f ? 0.5f : -0.5f));  // round to nearest
  const float fn = float(n);
  float r = x - fn * 0.693359375f;  // ln 2 = 0.693359375 - 2.12194440e-4, the first part exact
  r = r + fn * 2.12194440e-4f;
  const float z = r * r;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * z + r + 1.0f;
  const int32_t bits = (n + 127) * (1 << 23);  // 2^n
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

inline float sigmoid_f(float x) { return 1.0f / (1.0f + exp_f(-x)); }

inline float tanh_f(float x) {
  const float ax = x < 0.0f ? -x : x;
  const float z = x * x;
  float small = -5.70498872745e-3f;
  small = small * z + 2.06390887954e-2f;
  small = small * z - 5.37397155531e-2f;
  small = small * z + 1.33314422036e-1f;
  small = small * z - 3.33332819422e-1f;
  small = small * z * x + x;
  float large = 1.0f - 2.0f / (exp_f(2.0f * ax) + 1.0f);
  large = x < 0.0f ? -large : large;
  return ax < 0.625f ? small : large;
}

}  // namespace tandem::cpu::gates
