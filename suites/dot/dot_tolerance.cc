// Error classes per preset, as rigorous per-product bounds (typical errors, which the suite
// records, are smaller): BF16_BF16_F32 2^-8, TF32 2^-11, BF16 X3 2^-14, TF32 X3 and BF16 X6
// 2^-20, X9 2^-23, F32 2^-24, F64 2^-53 — each plus K roundings of the sum; the f8 presets
// none (the reference sees the same f8 operands), plus K roundings of an f32 sum.
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
  // f8 presets: the reference rounds the operands to f8 itself (reference_rules.cc), leaving
  // no input error; f8 products are exact in f32 and the sum is f32's. (The FAST_ACCUM ones
  // too: the CPU accumulates in full f32 and says so; a GPU's fast accumulation would need more.)
  if (algorithm_info(alg).f8_inputs) return {0.0, 0x1p-24};
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

double probabilistic_roundings(int64_t n) {
  if (n <= 1) return double(std::max<int64_t>(n, 0));
  double dn = double(n);
  return std::min(dn, std::sqrt(2 * std::log(2 * dn / 1e-9)) * std::sqrt(dn));
}

namespace {

std::string exponent(double u) { return u > 0 ? std::to_string(int(std::log2(u))) : std::string("-inf"); }

// The spec with `acc` roundings of the sum charged at u_acc each.
ErrorSpec spec_with(DotAlgorithm alg, DType in, DType out, int64_t k, double acc, const std::string& model) {
  DotErrorClass c = dot_error_class(alg, in);
  // f16 input rounding can also underflow to subnormals: an absolute floor of its smallest
  // subnormal per product covers it.
  double abs_floor = (algorithm_info(alg).storage == DType::f16) ? double(k) * 0x1p-24 : 0.0;
  ErrorSpec s;
  s.scaled = 2 * c.u_in + acc * c.u_acc;
  // The reference is itself rounded to the output dtype: two roundings apart at most.
  s.rel = 2 * unit_roundoff(out);
  s.abs = abs_floor;
  s.why = model + ": (2*u_in + " + (model == "worst case" ? std::string("K") : std::string("lambda*sqrt(K)")) +
          "*u_acc)*sum|a||b| + 2*u_out*|exact|, u_in=2^" + exponent(c.u_in) + " u_acc=2^" + exponent(c.u_acc) +
          " K=" + std::to_string(k);
  return s;
}

}  // namespace

ErrorSpec dot_worst_case_spec(DotAlgorithm alg, DType in, DType out, int64_t k) {
  return spec_with(alg, in, out, k, double(std::max<int64_t>(k, 1)), "worst case");
}

ErrorSpec dot_error_spec(DotAlgorithm alg, DType in, DType out, int64_t k) {
  // Stagnation (terms below half an ulp of the running sum all round the same way) biases
  // the errors: past K·u_acc = 0.1 the √K model does not hold and the worst case is the check.
  double u_acc = dot_error_class(alg, in).u_acc;
  if (double(k) * u_acc > 0.1) {
    ErrorSpec s = dot_worst_case_spec(alg, in, out, k);
    s.why = "K*u_acc > 0.1, the sqrt(K) model does not hold: " + s.why;
    return s;
  }
  return spec_with(alg, in, out, k, std::max(1.0, probabilistic_roundings(k)),
                   "probabilistic (Higham & Mary, P(fail) <= 1e-9 per element)");
}

}  // namespace tandem
