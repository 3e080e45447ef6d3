// Array kernels of vector_math.h and vector_math_exp.h: one vectorized pass (an AVX2+FMA
// clone is picked at load time where the CPU has it); for sin/cos, then a scalar pass that
// hands the rare out-of-range or non-finite element to libm (exp, logistic and tanh cover
// the whole float range themselves).
#include "engine/cpu/vector_math.h"
#include "engine/cpu/vector_math_exp.h"

#include <cmath>

#include "engine/cpu/vector_clones.h"

namespace tandem::cpu {
namespace {

template <bool kCos>
TANDEM_VECTOR_CLONES void sin_cos_vector_pass(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = sin_cos_f<kCos>(x[i]);
}

template <bool kCos>
void sin_cos_array(const float* x, float* y, int64_t n) {
  // Range check first: x and y may alias, and the fix-up needs the original x.
  bool all_in_range = true;
  for (int64_t i = 0; i < n; ++i) all_in_range &= std::fabs(x[i]) <= kSinCosVectorRange;
  if (all_in_range) {
    sin_cos_vector_pass<kCos>(x, y, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i];
    y[i] = std::fabs(v) <= kSinCosVectorRange ? sin_cos_f<kCos>(v) : (kCos ? std::cos(v) : std::sin(v));
  }
}

TANDEM_VECTOR_CLONES void exp_pass(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = exp_f(x[i]);
}
TANDEM_VECTOR_CLONES void logistic_pass(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = logistic_f(x[i]);
}
TANDEM_VECTOR_CLONES void tanh_pass(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = tanh_f(x[i]);
}

}  // namespace

void exp_f32(const float* x, float* y, int64_t n) { exp_pass(x, y, n); }
void logistic_f32(const float* x, float* y, int64_t n) { logistic_pass(x, y, n); }
void tanh_f32(const float* x, float* y, int64_t n) { tanh_pass(x, y, n); }
void cos_f32(const float* x, float* y, int64_t n) { sin_cos_array<true>(x, y, n); }
void sin_f32(const float* x, float* y, int64_t n) { sin_cos_array<false>(x, y, n); }

}  // namespace tandem::cpu
