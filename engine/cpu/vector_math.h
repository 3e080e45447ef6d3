// sin and cos in f32 as branch-free code the compiler vectorizes, and array kernels over them.
// libm's sinf/cosf are scalar calls (≈ 5 ns an element here), which made every elementwise
// program that touches them compute-bound: the scan-hoisting suite measured nothing but cos.
// The algorithm is Cephes' sinf/cosf: reduce |x| by multiples of π/4 with π/4 split in three
// parts (the first two products exact for |x| ≤ 8192), then a degree-4 cos or degree-3 sin
// polynomial in the reduced argument. Measured against libm in f64 (vector_math_test): at
// most 1.6 ulp where |result| > 10^-3 and 7.7·10^-8 absolute anywhere on that range. Outside
// it, and for Inf/NaN, the array kernels fall back to libm element by element.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>

namespace tandem::cpu {

// Above this |x| the three-part reduction loses bits: use libm.
inline constexpr float kSinCosVectorRange = 8192.0f;

// Written without branches or ?: on floats — quadrant choices are integer masks on the bit
// patterns — because GCC turns such selects into jumps and then will not vectorize the loop.
template <bool kCos>
inline float sin_cos_f(float x) {
  const uint32_t xbits = std::bit_cast<uint32_t>(x);
  // |x|, clamped to 8192 on the bits (for non-negative floats, integer order is float order,
  // and Inf/NaN compare above): keeps the int conversion defined; the caller fixes those up.
  const float ax = std::bit_cast<float>(std::min(xbits & 0x7fffffffu, 0x46000000u));
  const int32_t j = (int32_t(ax * 1.27323954473516f) + 1) & ~1;  // even octant at or above: z in [-π/4, π/4]
  const float y = float(j);
  const float z = ((ax - y * 0.78515625f) - y * 2.4187564849853515625e-4f) - y * 3.77489497744594108e-8f;
  const float zz = z * z;
  const float c = ((2.443315711809948e-5f * zz - 1.388731625493765e-3f) * zz + 4.166664568298827e-2f) * zz * zz -
                  0.5f * zz + 1.0f;
  const float s = ((-1.9515295891e-4f * zz + 8.3321608736e-3f) * zz - 1.6666654611e-1f) * zz * z + z;
  const uint32_t q = uint32_t(j) & 6u;  // 0, 2, 4 or 6: the quarter turn
  // cos: +c, -s, -c, +s; sin of |x|: +s, +c, -s, -c, then odd in x.
  const uint32_t pick_c = kCos ? ((q & 2u) >> 1) - 1u : 0u - ((q & 2u) >> 1);  // all ones: take c
  const uint32_t sign = kCos ? ((q + 2u) & 4u) << 29 : ((q & 4u) << 29) ^ (xbits & 0x80000000u);
  const uint32_t r = (std::bit_cast<uint32_t>(c) & pick_c) | (std::bit_cast<uint32_t>(s) & ~pick_c);
  return std::bit_cast<float>(r ^ sign);
}

inline float cos_f(float x) { return sin_cos_f<true>(x); }
inline float sin_f(float x) { return sin_cos_f<false>(x); }

// y[i] = cos(x[i]) / sin(x[i]) for n elements (x and y may alias).
void cos_f32(const float* x, float* y, int64_t n);
void sin_f32(const float* x, float* y, int64_t n);

}  // namespace tandem::cpu
