// The edges of each floating dtype's range, which the fuzzer's values (fuzz_values.cc) draw
// from and its tolerance (fuzz_compare.cc, fuzz_driver.cc) treats specially.
#pragma once
#include <cmath>
#include <limits>

#include "common/dtype.h"

namespace tandem::fuzz {

inline double largest_finite(DType t) {
  switch (t) {
    case DType::f64: return std::numeric_limits<double>::max();
    case DType::f32: return double(std::numeric_limits<float>::max());
    case DType::f16: return 65504.0;
    case DType::bf16: return 0x1.FEp127;
    default: return 0;
  }
}

inline double smallest_normal(DType t) {
  switch (t) {
    case DType::f64: return std::numeric_limits<double>::min();
    case DType::f32: case DType::bf16: return double(std::numeric_limits<float>::min());
    case DType::f16: return 0x1p-14;
    default: return 0;
  }
}

// A finite nonzero x whose square (or reciprocal square) leaves t's range: beyond the square
// root of its largest finite value, or below that of its smallest normal. A rule that squares
// or inverts it (div's y⁻², a dot of such values) overflows or underflows in t, in the engine
// and in JAX, where the reference's f64 stays finite.
inline bool square_leaves_range(double x, DType t) {
  const double a = std::fabs(x), big = std::sqrt(largest_finite(t)), small = std::sqrt(smallest_normal(t));
  return big > 0 && std::isfinite(x) && (a > big || (a != 0 && a < small));
}

inline double smallest_subnormal(DType t) {
  switch (t) {
    case DType::f64: return std::numeric_limits<double>::denorm_min();
    case DType::f32: return double(std::numeric_limits<float>::denorm_min());
    case DType::f16: return 0x1p-24;
    case DType::bf16: return 0x1p-133;
    default: return 0;
  }
}

}  // namespace tandem::fuzz
