// The options every case-running command shares (--suite --filter --backend --profile --program) and
// how they turn into (case, device) pairs. Bad values are bad-input errors with hints.
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/case.h"
#include "runners/cli/program_import.h"

namespace tandem {

struct Selection {
  std::string suite;
  std::string exclude_suite;  // every suite but this one (ci/quick_run.sh runs it apart, on 4 ranks)
  std::string filter;
  std::string backend = "auto";  // cpu | cuda | all | auto (cpu, plus cuda when a GPU is visible)
  std::string profile = "quick";
  ProgramSelection program;  // --program: the user's own program's cases instead of the suites'
};

void add_selection_options(CLI::App& cmd, Selection& s);
std::vector<const Case*> selected_cases(const Selection& s);
std::vector<Device> selected_devices(const Selection& s);
std::string backend_name(Device d);
// The one device of a command that runs one computation on the user's files (`tandem lstm`,
// `tandem dot`): --backend cpu or cuda. Anything else, or cuda without a usable GPU (the
// reason said), is bad input.
Device single_device(const std::string& command, const std::string& backend);

}  // namespace tandem
