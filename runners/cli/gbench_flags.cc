// The check of Google Benchmark's flags for `tandem bench` (see gbench_flags.h). The table
// below is the one list of the flags tandem passes on; a flag not in it is refused, so a
// Google Benchmark upgrade that adds one needs a row here.
#include "runners/cli/gbench_flags.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "engine/core/error.h"

namespace tandem {
namespace {

enum class Kind { boolean, positive_int, nonnegative_int, positive_seconds, nonnegative_seconds, regex, choice,
                  key_values, path, refused };

struct FlagRule {
  const char* name;
  Kind kind;
  std::vector<std::string> choices = {};  // Kind::choice
};

const std::vector<FlagRule>& rules() {
  static const std::vector<FlagRule> table = {
      {"benchmark_list_tests", Kind::boolean},
      {"benchmark_filter", Kind::regex},
      {"benchmark_min_time", Kind::positive_seconds},
      {"benchmark_min_warmup_time", Kind::nonnegative_seconds},
      {"benchmark_repetitions", Kind::positive_int},
      {"benchmark_enable_random_interleaving", Kind::boolean},
      {"benchmark_report_aggregates_only", Kind::boolean},
      {"benchmark_display_aggregates_only", Kind::boolean},
      {"benchmark_format", Kind::choice, {"console", "json", "csv"}},
      {"benchmark_out", Kind::path},
      {"benchmark_out_format", Kind::choice, {"json", "console", "csv"}},
      {"benchmark_color", Kind::choice, {"auto", "true", "false", "yes", "no", "1", "0"}},
      {"benchmark_counters_tabular", Kind::boolean},
      {"benchmark_time_unit", Kind::choice, {"ns", "us", "ms", "s"}},
      {"benchmark_context", Kind::key_values},
      // Debian's libbenchmark is built without libpfm: a counter name aborts the run.
      {"benchmark_perf_counters", Kind::refused},
      {"v", Kind::nonnegative_int},
  };
  return table;
}

const char* kHint = "Google Benchmark's flags go after `--`, e.g. `tandem bench --suite dot -- "
                    "--benchmark_repetitions=3 --benchmark_out=bench.json`";

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& e : v) s += (s.empty() ? "" : ", ") + e;
  return s;
}

[[noreturn]] void bad(const std::string& flag, const std::string& why, const std::string& hint = kHint) {
  throw_bad_input(cat("bench: ", flag, ": ", why), hint);
}

double number(const std::string& flag, const std::string& v) {
  size_t used = 0;
  double d = 0;
  try {
    d = std::stod(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (v.empty() || used != v.size() || !std::isfinite(d)) bad(flag, cat("'", v, "' is not a finite number"));
  return d;
}

void check_value(const FlagRule& r, const std::string& flag, const std::string& v, GbenchFlags& out) {
  switch (r.kind) {
    case Kind::boolean:
      if (v != "true" && v != "false" && v != "1" && v != "0" && v != "yes" && v != "no")
        bad(flag, cat("'", v, "' is not true or false"));
      break;
    case Kind::positive_int:
    case Kind::nonnegative_int: {
      const double d = number(flag, v);
      const double lo = r.kind == Kind::positive_int ? 1 : 0;
      if (d != std::floor(d) || d < lo || d > 1e6)
        bad(flag, cat(v, " is not an integer in [", lo, ", 1000000]"),
            std::string(r.name) == "v" ? kHint : "repeat a benchmark 1 or more times, e.g. --benchmark_repetitions=5");
      break;
    }
    case Kind::positive_seconds:
    case Kind::nonnegative_seconds: {
      const double d = number(flag, v);
      if (d < 0 || (r.kind == Kind::positive_seconds && d == 0) || d > 86400)
        bad(flag, cat(v, " seconds is outside ", r.kind == Kind::positive_seconds ? "(0" : "[0", ", 86400]"),
            "a time in seconds, e.g. --benchmark_min_time=0.5");
      break;
    }
    case Kind::regex: {
      // Google Benchmark's filter is a POSIX extended regex; a leading '-' negates it.
      const std::string re = !v.empty() && v[0] == '-' ? v.substr(1) : v;
      try {
        std::regex compiled(re, std::regex::extended);
      } catch (const std::regex_error& e) {
        bad(flag, cat("'", v, "' is not a valid regular expression (", e.what(), ")"),
            "--benchmark_filter is a POSIX extended regex over the names `tandem bench -- --benchmark_list_tests` prints");
      }
      out.filter = v;
      break;
    }
    case Kind::choice:
      if (std::find(r.choices.begin(), r.choices.end(), v) == r.choices.end())
        bad(flag, cat("'", v, "' is not one of ", joined(r.choices)), cat("use one of ", joined(r.choices)));
      if (std::string(r.name) == "benchmark_format") out.format = v;
      if (std::string(r.name) == "benchmark_out_format") out.out_format = v;
      break;
    case Kind::key_values:
      for (size_t at = 0; at <= v.size();) {
        const size_t end = std::min(v.find(',', at), v.size());
        const std::string kv = v.substr(at, end - at);
        if (kv.find('=') == std::string::npos || kv.front() == '=')
          bad(flag, cat("'", kv, "' is not key=value"), "--benchmark_context=key=value[,key=value...]");
        at = end + 1;
      }
      break;
    case Kind::path:
      if (v.empty()) bad(flag, "the file name is empty", "--benchmark_out=FILE writes the report to FILE");
      out.out = v;
      break;
    case Kind::refused:
      bad(flag, "not supported by this Google Benchmark build (no libpfm)", "drop --benchmark_perf_counters");
  }
}

}  // namespace

GbenchFlags check_gbench_flags(const std::vector<std::string>& flags) {
  GbenchFlags out;
  for (const std::string& f : flags) {
    if (f.rfind("--", 0) != 0) bad(f, "not a Google Benchmark flag (they start with --benchmark_)");
    const size_t eq = f.find('=');
    const std::string name = f.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    auto rule = std::find_if(rules().begin(), rules().end(), [&](const FlagRule& r) { return name == r.name; });
    if (rule == rules().end()) {
      std::vector<std::string> names;
      for (const FlagRule& r : rules()) names.push_back(cat("--", r.name));
      bad(f, "unknown Google Benchmark flag", cat("the flags `tandem bench` passes on: ", joined(names)));
    }
    if (eq == std::string::npos) {
      if (rule->kind != Kind::boolean) bad(f, "needs a value: " + f + "=...");
      check_value(*rule, f, "true", out);
    } else {
      check_value(*rule, f, f.substr(eq + 1), out);
    }
  }
  if (!out.out.empty()) {
    // Google Benchmark would exit 1 (the correctness code) when it cannot open the file: open
    // it here first, without truncating a file that is there.
    std::error_code ec;
    if (std::filesystem::is_directory(out.out, ec))
      bad("--benchmark_out=" + out.out, "is a directory", "--benchmark_out=FILE names the report file");
    std::ofstream probe(out.out, std::ios::app);
    if (!probe)
      throw Error(ErrorKind::internal, cat("bench: cannot write --benchmark_out=", out.out),
                  "check that its directory exists and is writable");
  }
  return out;
}

}  // namespace tandem
