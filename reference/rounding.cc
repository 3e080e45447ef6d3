// Round-to-nearest-even from f64 into f32 / bf16 / f16, plus the i32 and pred conversions.
#include "reference/rounding.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace tandem::ref {

FloatFormat float_format(DType t) {
  switch (t) {
    case DType::f64:
      return {53, -1022, 1023};
    case DType::f32:
      return {24, -126, 127};
    case DType::bf16:
      return {8, -126, 127};
    case DType::f16:
      return {11, -14, 15};
    default:
      break;
  }
  throw std::invalid_argument("float_format: " + std::string(dtype_name(t)) +
                              " is not a floating-point dtype");
}

double max_finite(DType t) {
  const FloatFormat f = float_format(t);
  // (2 - 2^(1-p)) * 2^emax
  return std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.emax);
}

// Rounds a >= 0 (an exact multiple of 2^-1074) to the nearest integer, ties to even.
static double round_half_even(double a) {
  const double lower = std::floor(a);
  const double frac = a - lower;  // exact: a and lower share an exponent range
  if (frac > 0.5) return lower + 1.0;
  if (frac < 0.5) return lower;
  return std::fmod(lower, 2.0) == 0.0 ? lower : lower + 1.0;
}

double round_to_format(const FloatFormat& f, double v) {
  if (std::isnan(v) || std::isinf(v) || v == 0.0) return v;
  const double a = std::fabs(v);
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e with m in [0.5, 1): a lies in [2^(e-1), 2^e)
  const int exponent = e - 1;
  if (exponent > f.emax) return std::copysign(INFINITY, v);
  // Spacing of representable numbers around a; below the normal range the spacing stays
  // that of the smallest binade (the subnormals).
  const int quantum_exp = (exponent < f.emin ? f.emin : exponent) - (f.precision - 1);
  const double scaled = std::ldexp(a, -quantum_exp);  // exact: a power-of-two scaling
  const double rounded = std::ldexp(round_half_even(scaled), quantum_exp);
  const double max = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.emax);
  if (rounded > max) return std::copysign(INFINITY, v);
  return std::copysign(rounded, v);  // keeps -0 when a tiny negative value rounds to zero
}

std::vector<double> tie_points(int precision, int emin, double max_finite) {
  const double u = std::ldexp(1.0, 1 - precision), q = std::ldexp(1.0, emin - precision + 1);
  int e = 0;
  std::frexp(max_finite, &e);
  const double half_ulp_at_max = std::ldexp(1.0, e - 1 - precision);  // ulp(max) = 2^(e-1-(p-1))
  std::vector<double> r = {1 + u / 2, 1 + 3 * u / 2, 2 - u / 2, max_finite - half_ulp_at_max,
                           max_finite + half_ulp_at_max, q / 2, 3 * q / 2, 5 * q / 2, std::ldexp(1.0, emin) - q / 2};
  for (size_t i = 0, n = r.size(); i < n; ++i) r.push_back(-r[i]);
  return r;
}

std::vector<double> tie_points(DType t) {
  const FloatFormat f = float_format(t);
  return tie_points(f.precision, f.emin, max_finite(t));
}

static double wrap_to_int32(double v) {
  if (!std::isfinite(v)) return 0.0;
  double t = std::fmod(std::trunc(v), 4294967296.0);  // exact; in (-2^32, 2^32)
  if (t >= 2147483648.0) t -= 4294967296.0;
  if (t < -2147483648.0) t += 4294967296.0;
  return t + 0.0;  // +0.0 turns -0 into +0
}

double round_to(DType t, double v) {
  switch (t) {
    case DType::f64:
      return v;
    case DType::f32:
    case DType::bf16:
    case DType::f16:
      return round_to_format(float_format(t), v);
    case DType::i32:
      return wrap_to_int32(v);
    case DType::pred:
      return v != 0.0 ? 1.0 : 0.0;
  }
  throw std::invalid_argument("round_to: unknown dtype");
}

}  // namespace tandem::ref
