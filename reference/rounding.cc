// Round-to-nearest-even from f64 into f32 / bf16 / f16, plus the i32 and pred conversions.
#include "reference/rounding.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <list>
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

// 2^e from its bits (-1022 <= e <= 1023).
static double pow2(int e) { return std::bit_cast<double>(uint64_t(e + 1023) << 52); }

// On v's bits: a = m · 2^(e-52), m the 53-bit significand (e = -1022 and no hidden bit for f64's
// subnormals, which every format here has below its emin). A result in the format's normal range
// is the bit pattern rounded at its dropped bits; below it, m is rounded to a multiple of the
// format's quantum 2^qe by integer arithmetic (ties to the even multiple) and rebuilt as q · 2^qe,
// exact in f64. No conversion to a narrower float is involved anywhere.
[[gnu::always_inline]] inline double round_to_format_inline(const FloatFormat& f, double v) {
  const uint64_t bits = std::bit_cast<uint64_t>(v), sign = bits & (uint64_t(1) << 63), a = bits ^ sign;
  const int biased = int(a >> 52);
  if (biased == 0x7ff || a == 0) return v;  // NaN, ±Inf, ±0
  const uint64_t m = biased ? (a & ((uint64_t(1) << 52) - 1)) | (uint64_t(1) << 52) : a;
  const int e = biased ? biased - 1023 : -1022;
  if (e > f.emax) return std::copysign(INFINITY, v);
  const double max = double((uint64_t(1) << f.precision) - 1) * pow2(f.emax - f.precision + 1);
  if (biased && e >= f.emin && f.precision < 53) {
    // A normal result: round the bit pattern itself at its 53 - p dropped bits (a carry out of
    // the significand steps the exponent, as the value steps into the next binade).
    const int drop = 53 - f.precision;
    const uint64_t r = (a + ((uint64_t(1) << (drop - 1)) - 1) + ((a >> drop) & 1)) & ~((uint64_t(1) << drop) - 1);
    return std::bit_cast<double>(r) > max ? std::copysign(INFINITY, v) : std::bit_cast<double>(r | sign);
  }
  // Spacing of representable numbers around a; below the normal range the spacing stays
  // that of the smallest binade (the subnormals).
  const int qe = std::max(e, f.emin) - (f.precision - 1), shift = qe - (e - 52);
  if (shift <= 0) return v;  // a multiple of the quantum already, at most max_finite
  uint64_t q = 0;
  if (shift < 64) {
    const uint64_t rem = m & ((uint64_t(1) << shift) - 1), half = uint64_t(1) << (shift - 1);
    q = (m >> shift) + (rem > half || (rem == half && ((m >> shift) & 1)) ? 1 : 0);
  }  // else m < 2^53 <= half the quantum: rounds to zero
  const double rounded = qe >= -1022 ? double(q) * pow2(qe) : std::ldexp(double(q), qe);  // exact: q <= 2^p
  if (rounded > max) return std::copysign(INFINITY, v);
  return std::bit_cast<double>(std::bit_cast<uint64_t>(rounded) | sign);  // keeps -0 when a tiny negative value rounds to zero
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

double round_to_format(const FloatFormat& f, double v) { return round_to_format_inline(f, v); }

void round_each(DType t, std::vector<double>& xs) {
  if (t != DType::f32 && t != DType::bf16 && t != DType::f16) {
    for (double& v : xs) v = round_to(t, v);
    return;
  }
  const FloatFormat f = float_format(t);
  for (double& v : xs) v = round_to_format_inline(f, v);
}

void round_recurring(const std::string& format, std::vector<double>& xs,
                     const std::function<void(std::vector<double>&)>& round) {
  struct Seen {
    std::string format;
    std::vector<double> in, out;
  };
  // A step of the LSTM's scan at an f8 preset rounds more than 8 distinct operands (its dots'
  // and their error bounds'): 16 kept, at most 2^23 values (64 MB each side).
  thread_local std::list<Seen> seen;  // the most recently used first
  thread_local size_t held = 0;
  // Small: rounded faster than compared; larger than all that is kept: never held (2 copies of it).
  if (xs.size() < 4096 || xs.size() > (size_t(1) << 23)) return round(xs);
  for (auto it = seen.begin(); it != seen.end(); ++it)
    if (it->format == format && it->in.size() == xs.size() &&
        std::memcmp(it->in.data(), xs.data(), xs.size() * sizeof(double)) == 0) {
      seen.splice(seen.begin(), seen, it);
      xs = it->out;
      return;
    }
  std::vector<double> in = xs;
  round(xs);
  for (held += xs.size(); !seen.empty() && (seen.size() >= 16 || held > (size_t(1) << 23)); seen.pop_back())
    held -= seen.back().in.size();
  seen.push_front(Seen{format, std::move(in), xs});
}

void round_each_recurring(DType t, std::vector<double>& xs) {
  round_recurring(std::string(dtype_name(t)), xs, [t](std::vector<double>& v) { round_each(t, v); });
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
