// Rounding an f64 value to each tandem dtype, written from the IEEE 754 definitions
// (round to nearest, ties to even), directly from f64 -- never through f32.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "common/dtype.h"

namespace tandem::ref {

// f64: identity. f32/bf16/f16: round-to-nearest-even, keeping NaN, +-Inf and the sign of
// zero, overflowing to +-Inf, with gradual underflow through the subnormals.
// i32: truncate toward zero, then wrap modulo 2^32 into [-2^31, 2^31) the way integer
// arithmetic overflow wraps (NaN and +-Inf give 0). pred: v != 0 (so NaN is true).
double round_to(DType t, double v);
// round_to(t, v) for each v of xs, in place (the format looked up once: the same bits, faster).
void round_each(DType t, std::vector<double>& xs);
// round(xs) for an operand that recurs unchanged (a scan's weights, rounded by a dot preset at
// every step): a thread keeps its last few large operands and their roundings by `format`, and
// an operand with the same bits gets that rounding copied. Rounding is a function of the bits
// alone, so the result is the one round would give.
void round_recurring(const std::string& format, std::vector<double>& xs,
                     const std::function<void(std::vector<double>&)>& round);
void round_each_recurring(DType t, std::vector<double>& xs);  // round_each through round_recurring

// The binary floating-point format behind a float dtype.
struct FloatFormat {
  int precision;  // significand bits, counting the implicit leading 1 (f32: 24)
  int emin;       // exponent of the smallest normal number (f32: -126)
  int emax;       // exponent of the largest finite number (f32: 127)
};
FloatFormat float_format(DType t);  // throws std::invalid_argument for i32 / pred

// Round-to-nearest-even of v into the format (the work behind round_to for floats).
double round_to_format(const FloatFormat& f, double v);

// Largest finite value of a float dtype (f16: 65504).
double max_finite(DType t);

// The exact ties of a binary format (midpoints of two neighbours, where ties-to-even and
// ties-away differ), both signs: 1 + u/2 (the even neighbour below), 1 + 3u/2 (above),
// 2 - u/2 (up into the next binade); either side of max_finite (below: to the even value
// under it or to max; above: overflow); the subnormal ties q/2 (to 0), 3q/2 and 5q/2 (both to
// 2q) and 2^emin - q/2 (up to the smallest normal), q the subnormal quantum. u = 2^(1-p).
// max_finite is given because f8 e4m3fn's is not (2 - u)·2^emax.
std::vector<double> tie_points(int precision, int emin, double max_finite);
std::vector<double> tie_points(DType t);  // a float dtype's

}  // namespace tandem::ref
