// CLI11 validators for every numeric and enumerated option of the CLI, each with a `hint:`,
// so a value out of range is bad input (exit 4) at parse time rather than a silent default,
// an endless loop or an abort later. NaN and Inf never pass a numeric check (CLI::Range lets
// NaN through: every comparison with it is false).
#pragma once
#include <CLI/CLI.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "engine/core/error.h"

namespace tandem {

// A finite number in [lo, hi] (after any earlier transform, e.g. CLI::AsSizeValue).
inline CLI::Validator in_range(double lo, double hi, const std::string& hint) {
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        double v = 0;
        size_t used = 0;
        try {
          v = std::stod(s, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == s.size() && std::isfinite(v) && v >= lo && v <= hi) return {};
        return cat("value ", s, " is not a finite number in [", lo, ", ", hi, "]\n  hint: ", hint);
      },
      cat("in [", lo, ", ", hi, "]"));
}

// One of `choices`, spelled exactly.
inline CLI::Validator one_of(const std::vector<std::string>& choices, const std::string& hint = {}) {
  std::string all;
  for (const std::string& c : choices) all += (all.empty() ? "" : " | ") + c;
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        for (const std::string& c : choices)
          if (s == c) return {};
        return cat("'", s, "' is not one of ", all, "\n  hint: ", hint.empty() ? "use one of " + all : hint);
      },
      all);
}

}  // namespace tandem
