// sin and cos in f32 as branch-free code the compiler vectorizes, and array kernels over them.
// libm's sinf/cosf are scalar calls (≈ 5 ns an element here), which made every elementwise
// program that touches them compute-bound: the scan-hoisting suite measured nothing but cos.
// The algorithm is Cephes' sinf/cosf: reduce |x| by multiples of π/4 with π/4 split in three
// parts (the first two products exact for |x| ≤ 8192), then a degree-4 cos or degree-3 sin
// polynomial in the reduced argument. Measured against libm in f64 (vector_math_test): at
// most 1.6 ulp where |result| > 10^-3 and 7.7·10^-8 absolute anywhere on that range. Outside
// it, and for Inf/NaN, the array kernels fall back to libm element by element.
#pragma once
#include <cstdint>

namespace tandem::cpu {

// Above this |x| the three-part reduction loses bits: use libm.
inline constexpr float kSinCosVectorRange = 8192.0f;

template <bool kCos>
inline float sin_cos_f(float x) {
  const float ax = x < 0.0f ? -x : x;
  float t = ax * 1.27323954473516f;  // 4/π
  t = t < 16384.0f ? t : 0.0f;       // keeps the int conversion defined for Inf/NaN (fixed up later)
  const int32_t j = (int32_t(t) + 1) & ~1;  // the even octant at or above: z lands in [-π/4, π/4]
  const float y = float(j);
  const float z = ((ax - y * 0.78515625f) - y * 2.4187564849853515625e-4f) - y * 3.77489497744594108e-8f;
  const float zz = z * z;
  const float c = ((2.443315711809948e-5f * zz - 1.388731625493765e-3f) * zz + 4.166664568298827e-2f) * zz * zz -
                  0.5f * zz + 1.0f;
  const float s = ((-1.9515295891e-4f * zz + 8.3321608736e-3f) * zz - 1.6666654611e-1f) * zz * z + z;
  const int32_t q = j & 7;  // 0, 2, 4 or 6: which quarter turn
  // cos: +c, -s, -c, +s; sin (of |x|): +s, +c, -s, -c, then odd in x.
  const bool use_c = kCos ? (q == 0 || q == 4) : (q == 2 || q == 6);
  const bool negate = kCos ? (q == 2 || q == 4) : ((q >= 4) != (x < 0.0f));
  const float r = use_c ? c : s;
  return negate ? -r : r;
}

inline float cos_f(float x) { return sin_cos_f<true>(x); }
inline float sin_f(float x) { return sin_cos_f<false>(x); }

// y[i] = cos(x[i]) / sin(x[i]) for n elements (x and y may alias).
void cos_f32(const float* x, float* y, int64_t n);
void sin_f32(const float* x, float* y, int64_t n);

}  // namespace tandem::cpu
