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

// A value that is not empty: an empty --suite selected every suite, an empty --out the
// working directory, an empty --precision the default.
inline CLI::Validator non_empty() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        return s.empty() ? "an empty value\n  hint: leave the option out for its default, or give a value" : "";
      },
      "");
}

// An integer with no minus sign: -1 wrapped as an unsigned seed, ran --bidirectional as 0, and
// reached JAX's dimension numbers, which are never negative.
inline CLI::Validator non_negative() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        return s.find('-') == std::string::npos ? "" : cat("value ", s, " is negative\n  hint: give a value >= 0");
      },
      "");
}

// Applied once from main to every option of every subcommand, so an option is covered by
// being added: no TEXT option of the CLI takes an empty value and no integer a negative one.
inline void check_every_option(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    if (o->get_type_size() == 0) continue;  // a flag
    const std::string type = o->get_type_name();
    if (type.rfind("TEXT", 0) == 0) o->check(non_empty());
    if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0) o->check(non_negative());
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) check_every_option(*sub);
}

}  // namespace tandem
