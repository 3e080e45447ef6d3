// The f8 formats ml_dtypes defines (float8_e4m3fn, float8_e5m2), written out from their
// definitions for the oracle: every one of the 256 bit patterns decoded to its value, and
// rounding as a search of that list (nearest value, a tie to the even pattern) — a different
// derivation from the engine's bit arithmetic (engine/core/f8.cc), meeting it in suites/.
#pragma once
#include <string>
#include <vector>

namespace tandem::ref {

// "e4m3fn": 1 sign, 4 exponent (bias 7), 3 fraction bits; no Inf; S.1111.111 is NaN; max 448.
// "e5m2": 1 sign, 5 exponent (bias 15), 2 fraction bits; IEEE-like: Inf and NaN at exponent 31.
// Throws std::invalid_argument for any other name.
double decode_f8(const std::string& format, int bits);

// v rounded to the nearest f8 value of `format`, a tie going to the pattern whose last bit is 0.
// Above the largest finite value the next pattern (max + one ulp there) is the neighbour: a
// value rounding to it is Inf where that pattern is Inf (e5m2) and NaN where it is NaN
// (e4m3fn). NaN stays NaN, ±Inf is ±Inf or NaN the same way, and the sign of zero is kept.
double round_to_f8(const std::string& format, double v);

// Each element of xs rounded.
std::vector<double> round_to_f8(const std::string& format, std::vector<double> xs);

}  // namespace tandem::ref
