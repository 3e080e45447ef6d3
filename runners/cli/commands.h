// Registration of the CLI's subcommands; each sets `exit_code` when it runs.
#pragma once
#include <CLI/CLI.hpp>

#include "runners/cli/run_command.h"

namespace tandem {
void add_list_command(CLI::App& app, int& exit_code);
void add_bench_command(CLI::App& app, int& exit_code);
void add_python_commands(CLI::App& app, int& exit_code);
}  // namespace tandem
