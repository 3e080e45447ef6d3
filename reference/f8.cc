// f8 decoding and rounding by enumeration (reference/f8.h).
#include "reference/f8.h"

#include <algorithm>
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

// The non-negative patterns of a format decoded (values[0 .. max_bits] finite and increasing),
// and the value one ulp past max_finite that a value must reach half-way to to overflow.
struct Table {
  std::vector<double> values;
  int max_bits = 0;
  double next_value = 0, beyond = 0;  // beyond: what overflow gives (Inf for e5m2, NaN for e4m3fn)
  explicit Table(const std::string& format) : values(positive_values(format)) {
    while (max_bits + 1 < 128 && std::isfinite(values[size_t(max_bits + 1)])) ++max_bits;
    next_value = 2 * values[size_t(max_bits)] - values[size_t(max_bits - 1)];
    beyond = decode_f8(format, max_bits + 1);
  }
};

// v rounded to the nearer of the two patterns around it (ties to the even pattern).
double round_with(const Table& t, double v) {
  if (std::isnan(v)) return v;
  const double a = std::fabs(v);
  // The largest pattern whose value is <= a (values[0] is 0, so there is one): a binary search.
  const int lo = int(std::upper_bound(t.values.begin(), t.values.begin() + t.max_bits + 1, a) - t.values.begin()) - 1;
  int chosen = lo;
  if (t.values[size_t(lo)] != a) {
    const int hi = lo + 1;  // may be the pattern after max
    const double hi_value = hi > t.max_bits ? t.next_value : t.values[size_t(hi)];
    // Both differences are exact (Sterbenz: neighbours are at most a factor 2 apart), except
    // q - a for a below half the smallest subnormal q, which is far from a tie either way.
    const double below = a - t.values[size_t(lo)], above = hi_value - a;
    chosen = below < above ? lo : above < below ? hi : (lo % 2 == 0 ? lo : hi);
  }
  const double r = chosen > t.max_bits ? t.beyond : t.values[size_t(chosen)];
  return std::copysign(r, v);
}

}  // namespace

double round_to_f8(const std::string& format, double v) { return round_with(Table(format), v); }

std::vector<double> round_to_f8(const std::string& format, std::vector<double> xs) {
  const Table table(format);
  for (double& x : xs) x = round_with(table, x);
  return xs;
}

}  // namespace tandem::ref
