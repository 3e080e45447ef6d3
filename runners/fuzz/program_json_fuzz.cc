// Fuzz target: `--program DIR` on arbitrary bytes — program.json and its companions (export.json,
// jax/saved_residuals.json, inputs/arg_<i>.npy, jax/out_<i>.npy) — through load_imported_program, the function every
// --program command calls, then the case list built from what loaded and the program written back and read again (the
// reader's round trip). Every input must load or be refused as bad input; another exception, a crash, a stack overflow
// or a sanitizer report is a finding. The input is text: program.json, then each companion after a line "\n#@file
// NAME\n" (kMarker), so the mutator's inserts and erases keep the files apart; a bare program.json is an input too. The
// seeds (runners/fuzz/corpus/program_json) are tandem's dumped programs and the exported examples.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>

#include "engine/ir/program_json.h"
#include "engine/ir/program_json_read.h"
#include "engine/prims/register_all.h"
#include "runners/cli/program_import.h"
#include "runners/fuzz/fuzz_scratch.h"
#include "suites/program_fuzz/program_check.h"

namespace {
namespace fs = std::filesystem;
constexpr std::string_view kMarker = "\n#@file ";

// The companions a marker may name; anything else is skipped (never a path outside the dir).
bool companion_name(std::string_view n) {
  for (std::string_view ok : {"export.json", "jax/saved_residuals.json"})
    if (n == ok) return true;
  for (std::string_view dir : {"inputs/arg_", "jax/out_"})
    if (n.substr(0, dir.size()) == dir && n.size() == dir.size() + 5 && n[dir.size()] >= '0' && n[dir.size()] <= '9' &&
        n.substr(dir.size() + 1) == ".npy")
      return true;
  return false;
}

void write(const fs::path& p, std::string_view bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), std::streamsize(bytes.size()));
}

// The input as a --program directory under `dir`.
void unpack(std::string_view in, const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  size_t at = in.find(kMarker);
  write(dir / "program.json", in.substr(0, at));
  while (at != std::string_view::npos) {
    const size_t name_at = at + kMarker.size(), eol = in.find('\n', name_at);
    if (eol == std::string_view::npos) return;
    const std::string_view name = in.substr(name_at, eol - name_at);
    at = in.find(kMarker, eol);
    if (companion_name(name)) write(dir / name, in.substr(eol + 1, at == std::string_view::npos ? at : at - eol - 1));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path dir = tandem::fuzz::scratch_dir("program_json") / "program";
  static const bool registered = (tandem::register_all_primitives(), true);  // as tandem's main does
  (void)registered;
  unpack(std::string_view(reinterpret_cast<const char*>(data), size), dir);
  tandem::ProgramSelection s;
  s.path = dir.string();
  try {
    const std::shared_ptr<tandem::ImportedProgram> p = tandem::load_imported_program(s);
    (void)tandem::program_check_cases(p);
    const std::string written = tandem::program_to_json(p->program).dump();
    if (tandem::program_to_json(tandem::program_from_json(nlohmann::json::parse(written))).dump() != written) {
      std::cerr << "program_json_fuzz: a program that loaded does not read back as itself\n";
      std::abort();
    }
  } catch (const tandem::Error& e) {
    tandem::fuzz::expect_bad_input(e);
  }
  return 0;
}
