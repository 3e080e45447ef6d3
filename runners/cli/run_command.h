// `tandem run` (check, then time) and `tandem check` (correctness only): runs the selected
// cases on the selected backends, prints progress on stderr and a table on stdout, writes
// records.json, benchmark.json (Google Benchmark format) and summary.md under --out.
#pragma once
#include <CLI/CLI.hpp>

namespace tandem {
// Registers the subcommand; `exit_code` receives the result when it runs.
void add_run_command(CLI::App& app, const std::string& name, bool timed, int& exit_code);
}
