// `--program PATH` of the case-running commands (run, check, list, bench, dump-programs): the
// user's own Program as the cases of suite "program" (suites/program_fuzz/program_check.h).
// PATH is a program.json, or a directory tools/import/export_jax_program.py wrote:
//   program.json               the Program (docs/PROGRAM_JSON.md), typechecked as it is read
//   inputs/arg_<i>.npy         example inputs, one per program input (else seeded ones)
//   jax/out_<i>.npy            JAX's outputs of the function on them (the import's check)
//   jax/saved_residuals.json   JAX's saved residuals per policy string
//   export.json                the exporter's notes; its "vmap" names the axes to vmap
// Anything that does not fit the program (counts, shapes, dtypes) is bad input (exit 4)
// naming the file.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/case.h"

namespace tandem {

// The most examples a vmap case batches: its check runs the program once per example too.
constexpr int64_t kMaxVmapSize = 4096;

struct ProgramSelection {
  std::string path;
  std::string inputs;                 // a directory of arg_<i>.npy (default PATH/inputs)
  std::string vmap_in_axes;           // "0,none,1" (default: export.json's "vmap")
  int64_t vmap_size = 0;              // 0: export.json's, else 4
  std::vector<std::string> policies;  // empty: default_policies
  bool time_effects = true;           // false under `check` (ImportedProgram::time_effects)
};

struct ImportedProgram;  // suites/program_fuzz/program_check.h

void add_program_options(CLI::App& cmd, ProgramSelection& s);
// PATH and its companions read and checked as --program reads them (bad input: a bad_input
// Error naming the file); the fuzz target's entry (runners/fuzz/program_json_fuzz.cc).
std::shared_ptr<ImportedProgram> load_imported_program(const ProgramSelection& s);
// The imported program's cases that `filter` (a --filter regex; empty: all) selects, read once (the pointers stay
// valid for the process); under `check`, their reference runs planned (program_check.h).
std::vector<const Case*> imported_program_cases(const ProgramSelection& s, const std::string& filter);

}  // namespace tandem
