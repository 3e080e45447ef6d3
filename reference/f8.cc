// f8 decoding and rounding by enumeration (reference/f8.h).
#include "reference/f8.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "reference/rounding.h"

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

// The non-negative patterns of a format decoded, as three tables of 129 (room for the
// search's last probe): search, the finite values 0 .. max_bits in increasing order and then NaN
// (never <= anything); neighbour, the same with the value one ulp past max_finite after max (a
// value must reach half-way to it to overflow); result, the same with what overflow gives after
// max (Inf for e5m2, NaN for e4m3fn).
struct Table {
  std::vector<double> search, neighbour, result;
  explicit Table(const std::string& format) {
    const std::vector<double> values = positive_values(format);
    int max_bits = 0;
    while (max_bits + 1 < 128 && std::isfinite(values[size_t(max_bits + 1)])) ++max_bits;
    search.assign(values.begin(), values.begin() + max_bits + 1);
    search.resize(129, std::numeric_limits<double>::quiet_NaN());
    neighbour = result = search;
    neighbour[size_t(max_bits + 1)] = 2 * values[size_t(max_bits)] - values[size_t(max_bits - 1)];
    result[size_t(max_bits + 1)] = decode_f8(format, max_bits + 1);
  }
};

// xs[i] rounded to the nearer of the two patterns around it (ties to the even pattern), i < n:
// the pattern below by a binary search of seven halvings, then a comparison of the distances.
// No branch in the loop, so it runs several elements side by side (table lookups by gather).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void round_all(const double* search, const double* neighbour, const double* result, double* xs, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const double v = xs[i], a = std::fabs(v);
    int lo = 0;  // the largest pattern whose value is <= a (search[0] is 0)
    for (int half = 64; half > 0; half /= 2) lo += half & -int(search[lo + half] <= a);
    // Both differences are exact (Sterbenz: neighbours are at most a factor 2 apart), except
    // q - a for a below half the smallest subnormal q, which is far from a tie either way.
    // a on a pattern: below is 0 and above positive; a = Inf: above is -Inf, so the pattern after max.
    const double below = a - neighbour[lo], above = neighbour[lo + 1] - a;
    const int chosen = lo + (int(above < below) | (int(above == below) & (lo & 1)));  // ties to the even pattern
    xs[i] = v != v ? v : std::copysign(result[chosen], v);
  }
}

}  // namespace

double round_to_f8(const std::string& format, double v) { return round_to_f8(format, std::vector<double>{v})[0]; }

std::vector<double> round_to_f8(const std::string& format, std::vector<double> xs) {
  round_recurring(format, xs, [&format](std::vector<double>& v) {
    const Table t(format);
    round_all(t.search.data(), t.neighbour.data(), t.result.data(), v.data(), v.size());
  });
  return xs;
}

}  // namespace tandem::ref
