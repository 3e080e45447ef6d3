// Error classes per preset, as rigorous per-product bounds (typical errors, which the suite
// records, are smaller): BF16_BF16_F32 2^-8, TF32 2^-11, BF16 X3 2^-14, TF32 X3 and BF16 X6
// 2^-20, X9 2^-23, F32 2^-24, F64 2^-53 — each plus K roundings of the sum.
#include "suites/dot/dot_tolerance.h"

#include <algorithm>
#include <cmath>

namespace tandem {

DotErrorClass dot_error_class(DotAlgorithm alg, DType in) {
  using A = DotAlgorithm;
  // Inputs no more precise than the format are represented exactly (f16 → bf16 is not:
  // its 11 bits do not fit in 8, and the unit roundoffs say so).
  double u_native = unit_roundoff(in == DType::i32 ? DType::f64 : in);
  auto fmt = [&](double u) { return u_native < u ? u : 0.0; };
  // A split preset represents inputs that fit in one narrow part (bf16: 8 bits, tf32: 11)
  // exactly; anything wider also meets the dropped cross products, whatever its width.
  auto split = [&](double narrow_u, double bound) { return u_native >= narrow_u ? 0.0 : bound; };
  switch (alg) {
    case A::F64_F64_F64: return {fmt(0x1p-53), 0x1p-53};
    case A::F32_F32_F32: return {fmt(0x1p-24), 0x1p-24};
    // Split presets: hi is a truncation, so a remainder term can be a full narrow ulp of
    // its parent (2^-7 for bf16, 2^-10 for tf32); the bound is set by the largest product
    // the preset drops (lo·lo for X3; mid·lo and lo·mid for X6) or, for X9, by rounding lo.
    case A::BF16_BF16_F32_X9: return {split(0x1p-8, 0x1p-23), 0x1p-24};
    case A::BF16_BF16_F32_X6: return {split(0x1p-8, 0x1p-20), 0x1p-24};
    case A::TF32_TF32_F32_X3: return {split(0x1p-11, 0x1p-20), 0x1p-24};
    case A::BF16_BF16_F32_X3: return {split(0x1p-8, 0x1p-14), 0x1p-24};
    case A::TF32_TF32_F32: return {fmt(0x1p-11), 0x1p-24};
    case A::F16_F16_F32: return {fmt(0x1p-11), 0x1p-24};
    case A::BF16_BF16_F32: return {fmt(0x1p-8), 0x1p-24};
    case A::F16_F16_F16: return {fmt(0x1p-11), 0x1p-11};
    case A::BF16_BF16_BF16: return {fmt(0x1p-8), 0x1p-8};
    default: return {fmt(0x1p-24), 0x1p-24};
  }
}

ErrorSpec dot_error_spec(DotAlgorithm alg, DType in, DType out, int64_t k) {
  DotErrorClass c = dot_error_class(alg, in);
  // f16 input rounding can also underflow to subnormals: an absolute floor of its smallest
  // subnormal per product covers it.
  double abs_floor = (algorithm_info(alg).storage == DType::f16) ? double(k) * 0x1p-24 : 0.0;
  ErrorSpec s;
  s.scaled = 2 * c.u_in + double(std::max<int64_t>(k, 1)) * c.u_acc;
  // The reference is itself rounded to the output dtype: two roundings apart at most.
  s.rel = 2 * unit_roundoff(out);
  s.abs = abs_floor;
  s.why = "(2*u_in + K*u_acc)*sum|a||b| + 2*u_out*|exact|, u_in=2^" +
          (c.u_in > 0 ? std::to_string(int(std::log2(c.u_in))) : std::string("-inf")) + " u_acc=2^" + std::to_string(int(std::log2(c.u_acc))) +
          " K=" + std::to_string(k);
  return s;
}

}  // namespace tandem
