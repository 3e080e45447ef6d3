// Google Benchmark's command-line flags as `tandem bench` takes them (after `--`), checked
// before any case runs: Google Benchmark itself exits 1 (tandem's correctness code) on a bad
// --benchmark_out, ignores an unknown --benchmark_format, runs nothing on a bad regex and
// exits 0, and aborts on --benchmark_repetitions=-1. Here each is bad input (exit 4) with a
// hint, and an --benchmark_out that cannot be written is an infrastructure error (exit 5).
#pragma once
#include <string>
#include <vector>

namespace tandem {

// What tandem needs to know of the flags to set up its reporters.
struct GbenchFlags {
  std::string format = "console";      // --benchmark_format: the report on stdout
  std::string out;                     // --benchmark_out: a file report, when set
  std::string out_format = "json";     // --benchmark_out_format
  std::string filter;                  // --benchmark_filter as given (empty: every case)
};

// Checks every flag against Google Benchmark 1.7's table (name, value kind, range) and opens
// --benchmark_out for writing; throws tandem::Error (bad_input, or internal for the file).
GbenchFlags check_gbench_flags(const std::vector<std::string>& flags);

}  // namespace tandem
