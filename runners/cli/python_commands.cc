// `tandem report | merge | gate | history | baseline | import`: thin doors into the Python tools in reports/,
// run with the project's Python chosen at configure time (TANDEM_PYTHON: the .venv of
// ci/python_env.sh), /usr/bin/python3 when that is gone, or the TANDEM_PYTHON environment
// variable when set. Arguments pass through,
// --help included, so `tandem report --help` prints the Python tool's own help. The tools are
// found beside the binary first (an installed tandem: PREFIX/bin/tandem and
// PREFIX/share/tandem/reports, see `install()` in CMakeLists.txt), then in the source tree the
// binary was built from, so an installed copy never runs a source tree's newer tools.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "runners/cli/commands.h"
#include "common/exit_codes.h"

namespace tandem {
namespace {

// The folder holding reports/__main__.py: PREFIX/share/tandem beside an installed binary,
// else the source tree; "" when neither has it.
std::string python_root(std::string* tried) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> roots;
  if (!ec) roots.push_back((exe.parent_path() / TANDEM_DATA_FROM_BIN).lexically_normal());
  roots.push_back(TANDEM_SOURCE_DIR);
  for (const fs::path& r : roots) {
    *tried += (tried->empty() ? "" : ", ") + (r / "reports").string();
    if (fs::exists(r / "reports" / "__main__.py")) return r.string();
  }
  return "";
}

// `full` with the project's Python as argv[0] in place of "python"; returns only on failure.
int exec_with_python(std::vector<std::string> full, const std::string& py) {
  std::vector<char*> argv;
  for (std::string& s : full) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::cout.flush();
  execv(py.c_str(), argv.data());
  std::cerr << "error: cannot run " << py << "\n  hint: run ci/install_deps.sh (it makes the project's .venv), or set TANDEM_PYTHON\n";
  return exit_code::infrastructure_error;
}

std::string project_python() {
  const char* py_env = std::getenv("TANDEM_PYTHON");
  std::string py = py_env ? py_env : TANDEM_DEFAULT_PYTHON;
  if (!py_env && access(py.c_str(), X_OK) != 0) py = "/usr/bin/python3";
  return py;
}

// `tandem import SPEC --out DIR ...`: tools/import/export_jax_program.py (a JAX function as Program
// JSON with its inputs and JAX's own results, docs/IMPORT.md), run with the project's Python,
// which has JAX; the script puts its own folder on sys.path for its modules.
int exec_exporter(const std::vector<std::string>& args) {
  std::string tried;
  const std::string root = python_root(&tried);
  const std::string script = root + "/tools/import/export_jax_program.py";
  if (root.empty() || access(script.c_str(), R_OK) != 0) {
    std::cerr << "error: tools/import/export_jax_program.py is in none of: " << tried << "\n"
              << "  hint: run tandem from its build tree, or install it (`cmake --install build --prefix P`)\n";
    return exit_code::infrastructure_error;
  }
  const std::string py = project_python();
  std::vector<std::string> full = {py, script};
  full.insert(full.end(), args.begin(), args.end());
  return exec_with_python(full, py);
}

int exec_python(const std::string& sub, const std::vector<std::string>& args) {
  const std::string py = project_python();
  std::string tried;
  std::string root = python_root(&tried);
  if (root.empty()) {
    std::cerr << "error: the Python reports package is in none of: " << tried << "\n"
              << "  hint: `cmake --install build --prefix P` puts it in P/share/tandem beside P/bin/tandem; "
                 "or run tandem from its build tree\n";
    return exit_code::infrastructure_error;
  }
  std::string pp = root;
  if (const char* old = std::getenv("PYTHONPATH")) pp += std::string(":") + old;
  setenv("PYTHONPATH", pp.c_str(), 1);
  // Safe-path mode (-P, Python >= 3.11; PYTHONSAFEPATH for its children): the working
  // directory is not put on sys.path, so a reports/ folder there cannot stand in for ours.
  setenv("PYTHONSAFEPATH", "1", 1);
  std::vector<std::string> full = {py, "-P", "-m", "reports", sub};
  full.insert(full.end(), args.begin(), args.end());
  return exec_with_python(full, py);
}
}  // namespace

void add_python_commands(CLI::App& app, int& exit_code) {
  for (const char* sub : {"report", "merge", "gate", "history", "baseline"}) {
    auto args = std::make_shared<std::vector<std::string>>();
    CLI::App* cmd = app.add_subcommand(sub, std::string("Python tool: python3 -m reports ") + sub + " --help");
    cmd->allow_extras();
    cmd->prefix_command();
    // No CLI11 help flag: --help goes through to the Python tool, whose help is the real one.
    cmd->set_help_flag();
    cmd->callback([cmd, sub, &exit_code] { exit_code = exec_python(sub, cmd->remaining()); });
  }
  CLI::App* imp = app.add_subcommand("import", "Python tool: a JAX function as Program JSON for `tandem run --program` "
                                               "(tools/import/export_jax_program.py --help; docs/IMPORT.md)");
  imp->allow_extras();
  imp->prefix_command();
  imp->set_help_flag();
  imp->callback([imp, &exit_code] { exit_code = exec_exporter(imp->remaining()); });
}

}  // namespace tandem
