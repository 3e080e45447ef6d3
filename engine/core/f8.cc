// f8 formats and round_to_f8 (engine/core/f8.h): bit arithmetic on the f64 pattern, so the
// result is the same on every CPU and independent of the FPU's rounding mode for normals.
#include "engine/core/f8.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/core/error.h"

namespace tandem {

const std::vector<F8Info>& all_f8_formats() {
  static const std::vector<F8Info> table = {
      {F8Format::e4m3fn, "e4m3fn", 3, -6, 448.0, false},
      {F8Format::e5m2, "e5m2", 2, -14, 57344.0, true},
  };
  return table;
}

const F8Info& f8_info(F8Format f) {
  for (const F8Info& i : all_f8_formats())
    if (i.format == f) return i;
  throw Error(ErrorKind::invariant, "f8 format missing from table");
}

std::optional<F8Format> parse_f8_format(const std::string& s) {
  for (const F8Info& i : all_f8_formats())
    if (s == i.name) return i.format;
  return std::nullopt;
}

std::string f8_format_names() {
  std::string r;
  for (const F8Info& i : all_f8_formats()) r += (r.empty() ? "" : " | ") + std::string(i.name);
  return r;
}

double round_to_f8(double v, F8Format f) {
  const F8Info& info = f8_info(f);
  if (std::isnan(v)) return v;
  const double a = std::fabs(v);
  double r;
  if (std::isinf(a)) {
    r = info.has_inf ? a : NAN;
  } else if (a < std::ldexp(1.0, info.min_exponent)) {
    // Subnormal range: a + c, c = 2^(52 + min_exponent - mantissa_bits), lies in [c, 2c) where
    // f64's ulp is the subnormal quantum, so the addition itself rounds a to nearest even at
    // that quantum (the default rounding mode); subtracting c again is exact.
    const double c = std::ldexp(1.0, 52 + info.min_exponent - info.mantissa_bits);
    r = (a + c) - c;
  } else {
    // Normal: drop 52 - mantissa_bits fraction bits, adding half an ulp minus one plus the kept
    // last bit (ties to even); a carry into the exponent is the correctly rounded value.
    const int drop = 52 - info.mantissa_bits;
    uint64_t u;
    std::memcpy(&u, &a, sizeof u);
    u += (uint64_t(1) << (drop - 1)) - 1 + ((u >> drop) & 1);
    u &= ~((uint64_t(1) << drop) - 1);
    std::memcpy(&r, &u, sizeof r);
  }
  if (r > info.max_finite) r = info.has_inf ? INFINITY : NAN;
  return std::copysign(r, v);
}

}  // namespace tandem
