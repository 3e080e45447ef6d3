// The f8 storage formats of JAX's ANY_F8 DotAlgorithm presets — ml_dtypes' float8_e4m3fn and
// float8_e5m2, which JAX represents on every backend — and the conversion into them (round to
// nearest, ties to even, with ml_dtypes' Inf/NaN/overflow rules). tandem has no f8 dtype: an f8
// preset rounds its operands with round_to_f8 and computes on the rounded values (engine/cpu).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace tandem {

enum class F8Format { e4m3fn, e5m2 };

struct F8Info {
  F8Format format;
  const char* name;   // ml_dtypes' name without "float8_"
  int mantissa_bits;  // stored fraction bits
  int min_exponent;   // exponent of the smallest normal number
  double max_finite;  // e4m3fn: 448 (S.1111.111 is its NaN); e5m2: 57344
  bool has_inf;       // e5m2 overflows to Inf; e4m3fn has no Inf, so overflow and Inf give NaN
};

const std::vector<F8Info>& all_f8_formats();
const F8Info& f8_info(F8Format f);
std::optional<F8Format> parse_f8_format(const std::string& s);
std::string f8_format_names();  // "e4m3fn | e5m2", for hints

// v rounded to format f as JAX's convert does, directly from f64: nearest, ties to even. It is
// ml_dtypes' rounding for f32 or narrower inputs; ml_dtypes' float64 cast goes through float32
// first, which puts 1.0625 + 2^-40 on the tie and so at 1.0, where JAX and tandem give 1.125.
// Subnormals at the fixed quantum 2^(min_exponent - mantissa_bits); ±0 and NaN keep their
// sign; ±Inf, and a value that rounds above max_finite, are ±Inf where the format has it and
// NaN where not (e4m3fn: 464, the midpoint to the 480 it lacks, ties to 448; above is NaN).
double round_to_f8(double v, F8Format f);

// The f8 format of each operand of an ANY_F8 preset (JAX: the operands' own dtypes).
struct F8Operands {
  F8Format lhs = F8Format::e4m3fn, rhs = F8Format::e4m3fn;
};

}  // namespace tandem
