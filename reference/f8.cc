// f8 decoding and rounding by enumeration (reference/f8.h).
#include "reference/f8.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace tandem::ref {
namespace {

struct Layout {
  int exponent_bits, fraction_bits, bias;
  bool ieee_specials;  // e5m2: exponent all ones is Inf (fraction 0) or NaN; e4m3fn: only S.1111.111 is NaN
};

Layout layout_of(const std::string& format) {
  if (format == "e4m3fn") return {4, 3, 7, false};
  if (format == "e5m2") return {5, 2, 15, true};
  throw std::invalid_argument("unknown f8 format '" + format + "' (e4m3fn or e5m2)");
}

// The non-negative patterns 0 .. 127 decoded, in order (increasing values, then Inf/NaN).
std::vector<double> positive_values(const std::string& format) {
  std::vector<double> v;
  for (int bits = 0; bits < 128; ++bits) v.push_back(decode_f8(format, bits));
  return v;
}

}  // namespace

double decode_f8(const std::string& format, int bits) {
  const Layout l = layout_of(format);
  const bool negative = (bits >> 7) & 1;
  const int exponent = (bits >> l.fraction_bits) & ((1 << l.exponent_bits) - 1);
  const int fraction = bits & ((1 << l.fraction_bits) - 1);
  const int top = (1 << l.exponent_bits) - 1;
  double value;
  if (l.ieee_specials && exponent == top)
    value = fraction == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  else if (!l.ieee_specials && exponent == top && fraction == (1 << l.fraction_bits) - 1)
    value = std::numeric_limits<double>::quiet_NaN();
  else if (exponent == 0)  // subnormal: 0.fraction × 2^(1 - bias)
    value = std::ldexp(double(fraction), 1 - l.bias - l.fraction_bits);
  else  // normal: 1.fraction × 2^(exponent - bias)
    value = std::ldexp(double((1 << l.fraction_bits) + fraction), exponent - l.bias - l.fraction_bits);
  return negative ? -value : value;
}

namespace {

// round_to_f8 with the decoded non-negative patterns `values` of `format` at hand.
double round_with(const std::vector<double>& values, const std::string& format, double v) {
  if (std::isnan(v)) return v;
  const double a = std::fabs(v);
  // The largest finite pattern; the one after it (Inf or NaN) stands for max + ulp(max).
  int max_bits = 0;
  while (max_bits + 1 < 128 && std::isfinite(values[size_t(max_bits + 1)])) ++max_bits;
  const double next_value = 2 * values[size_t(max_bits)] - values[size_t(max_bits - 1)];
  int lo = 0;  // the largest pattern whose value is <= a
  while (lo < max_bits && values[size_t(lo + 1)] <= a) ++lo;
  int chosen = lo;
  if (values[size_t(lo)] != a) {
    const int hi = lo + 1;  // may be the pattern after max
    const double hi_value = hi > max_bits ? next_value : values[size_t(hi)];
    // Both differences are exact (Sterbenz: neighbours are at most a factor 2 apart), except
    // q - a for a below half the smallest subnormal q, which is far from a tie either way.
    const double below = a - values[size_t(lo)], above = hi_value - a;
    chosen = below < above ? lo : above < below ? hi : (lo % 2 == 0 ? lo : hi);
  }
  const double r = chosen > max_bits ? decode_f8(format, max_bits + 1) : values[size_t(chosen)];
  return std::copysign(r, v);
}

}  // namespace

double round_to_f8(const std::string& format, double v) { return round_with(positive_values(format), format, v); }

std::vector<double> round_to_f8(const std::string& format, std::vector<double> xs) {
  const std::vector<double> values = positive_values(format);
  for (double& x : xs) x = round_with(values, format, x);
  return xs;
}

}  // namespace tandem::ref
