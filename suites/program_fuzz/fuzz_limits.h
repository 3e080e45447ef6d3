// The edges of each floating dtype's range, which the fuzzer's values (fuzz_values.cc) draw
// from and its tolerance (fuzz_compare.cc, fuzz_driver.cc) treats specially.
#pragma once
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
