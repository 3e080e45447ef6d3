// CLI11 validators for every numeric and enumerated option of the CLI, each with a `hint:`,
// so a value out of range is bad input (exit 4) at parse time rather than a silent default,
// an endless loop or an abort later. NaN and Inf never pass a numeric check (CLI::Range lets
// NaN through: every comparison with it is false).
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>
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

// Marks an option whose empty value means something (`tandem dot --lhs-contracting ''`: no
// axis, as JAX's empty dimension numbers): check_every_option leaves non_empty off it.
inline CLI::Validator empty_is_a_value() {
  return CLI::Validator([](std::string&) { return std::string(); }, "", "empty_is_a_value");
}

// An integer with no minus sign that fits in 64 bits: -1 wrapped as an unsigned seed, ran
// --bidirectional as 0, and reached JAX's dimension numbers, which are never negative; and
// CLI11 reads 10^20 as the largest integer (strtoull saturates), so it ran a seed of 2^64 - 1.
inline CLI::Validator non_negative(bool is_unsigned) {
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        if (s.find('-') != std::string::npos) return cat("value ", s, " is negative\n  hint: give a value >= 0");
        errno = 0;
        is_unsigned ? (void)std::strtoull(s.c_str(), nullptr, 10) : (void)std::strtoll(s.c_str(), nullptr, 10);
        return errno == ERANGE ? cat("value ", s, " does not fit in 64 bits\n  hint: give a smaller value") : "";
      },
      "");
}

// CLI11's own parse errors (a value that does not convert, an option that needs another, an
// extra argument) carry no hint; the contract is one. Ours, from the validators above, keep theirs.
inline std::string message_with_hint(const CLI::App* app, const CLI::Error& e) {
  std::string m = CLI::FailureMessage::simple(app, e), subs;  // subs: the parsed ones, e.g. "history add "
  for (const CLI::App* s = app; !s->get_subcommands().empty(); subs += s->get_name() + " ")
    s = s->get_subcommands().front();
  if (m.find("hint:") != std::string::npos) return m;
  const char* why = e.get_name() == "ConversionError" ? "the value is not of the option's type; " : "";
  return m + "  hint: " + why + "`tandem " + subs + "--help` lists the options and the values each takes\n";
}

// Applied once from main to every option of every subcommand, so an option is covered by
// being added: no option of the CLI takes an empty value (an empty --warmup ran as 0) and no
// integer a negative or oversized one.
inline void check_every_option(CLI::App& app) {
  app.failure_message(message_with_hint);
  for (CLI::Option* o : app.get_options()) {
    // A flag takes no value: --quiet=-1 was true, --list=0 ran every fault.
    if (o->get_expected_max() == 0 && o->disable_flag_override()) continue;
    const std::string type = o->get_type_name();
    bool empty_ok = true;
    try {
      o->get_validator("empty_is_a_value");
    } catch (const CLI::OptionNotFound&) {
      empty_ok = false;
    }
    if (!empty_ok) o->check(non_empty());
    if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0) o->check(non_negative(type[0] == 'U'));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) check_every_option(*sub);
}

// The option table as JSON, printed when TANDEM_OPTION_TABLE is set (undocumented, for
// runners/option_walk_test.py): read from the very CLI::App main builds, so an option is walked
// by being added. A Python door (report, gate ...) passes everything through: it is listed by
// name, and the test reads its options from reports/__main__.py's argparse parser.
inline void option_rows(const CLI::App& app, const std::string& path, nlohmann::json& rows) {
  for (const CLI::Option* o : app.get_options())
    if (o->get_name() != "--help" && o->get_name() != "--version")  // CLI11's own, exit 0
      rows.push_back({{"sub", path}, {"name", o->get_name()}, {"positional", o->get_positional()},
                      {"takes_value", o->get_expected_max() != 0}, {"type", o->get_type_name()}});
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    const std::string p = path.empty() ? sub->get_name() : path + " " + sub->get_name();
    if (sub->get_prefix_command()) rows.push_back({{"sub", p}, {"python", true}});
    else option_rows(*sub, p, rows);
  }
}

inline int print_option_table(const CLI::App& app) {
  nlohmann::json rows = nlohmann::json::array();
  option_rows(app, "", rows);
  std::cout << rows.dump(1) << "\n";
  return 0;
}

}  // namespace tandem
