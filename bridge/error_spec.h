// ErrorSpec and comparison. Tolerances derive from the dtype's unit roundoff, the algorithm and the reduction length; a
// mismatch report gives max abs, max rel, the first bad index, expected vs got. An optional per-element scale (e.g.
// Σ|a||b| for a dot) makes the bound condition-aware: |got − want| ≤ abs + rel·|want| + scaled·scale[i].
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/dtype.h"

namespace tandem {

struct ErrorSpec {
  double abs = 0;
  double rel = 0;
  double scaled = 0;  // multiplies scale[i] when a scale is given
  std::string why;    // how the numbers were derived, for the record
};

struct CompareReport {
  bool pass = true;
  int64_t count = 0, bad = 0;
  double max_abs = 0, max_rel = 0;
  double max_ratio = 0;  // max of error / allowed error; ≤ 1 passes
  bool exact = true;     // every allowed error was 0: an exact check
  int64_t first_bad = -1;
  double expected = 0, got = 0;  // at first_bad
  std::string text() const;      // one line for humans
  // Headroom = tolerance ÷ observed error = 1 / max_ratio: how many times larger the error
  // could grow and still pass. Above ~10^4 on a non-exact check the bound cannot catch a
  // real bug. JSON: a number, "exact" for a zero tolerance, "no error observed" for 0 error.
  nlohmann::json headroom() const;
  nlohmann::json to_json() const;
};

// NaN matches NaN and ±Inf matches the same Inf; anything else non-finite is a mismatch.
CompareReport compare(const std::vector<double>& want, const std::vector<double>& got,
                      const ErrorSpec& spec, const std::vector<double>* scale = nullptr);

// Elementwise op in dtype t: a few units of roundoff, relative.
ErrorSpec elementwise_spec(DType t, double ulps = 2);

}  // namespace tandem
