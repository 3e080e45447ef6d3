// `tandem report | gate | history | baseline`: thin doors into the Python tools in reports/,
// run with Debian's /usr/bin/python3 (override with TANDEM_PYTHON). Arguments pass through,
// --help included, so `tandem report --help` prints the Python tool's own help.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "runners/cli/commands.h"
#include "common/exit_codes.h"

namespace tandem {
namespace {

int exec_python(const std::string& sub, const std::vector<std::string>& args) {
  const char* py_env = std::getenv("TANDEM_PYTHON");
  std::string py = py_env ? py_env : "/usr/bin/python3";
  std::string root = TANDEM_SOURCE_DIR;
  if (!std::filesystem::exists(root + "/reports/__main__.py")) {
    std::cerr << "error: the Python reports package is not at " << root << "/reports\n"
              << "  hint: run tandem from its build tree, or set TANDEM_SOURCE_DIR at configure\n";
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
  std::vector<char*> argv;
  for (std::string& s : full) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::cout.flush();
  execv(py.c_str(), argv.data());
  std::cerr << "error: cannot run " << py << "\n  hint: apt-get install python3-matplotlib python3-scipy, or set TANDEM_PYTHON\n";
  return exit_code::infrastructure_error;
}
}  // namespace

void add_python_commands(CLI::App& app, int& exit_code) {
  for (const char* sub : {"report", "gate", "history", "baseline"}) {
    auto args = std::make_shared<std::vector<std::string>>();
    CLI::App* cmd = app.add_subcommand(sub, std::string("Python tool: python3 -m reports ") + sub + " --help");
    cmd->allow_extras();
    cmd->prefix_command();
    // No CLI11 help flag: --help goes through to the Python tool, whose help is the real one.
    cmd->set_help_flag();
    cmd->callback([cmd, sub, &exit_code] { exit_code = exec_python(sub, cmd->remaining()); });
  }
}

}  // namespace tandem
