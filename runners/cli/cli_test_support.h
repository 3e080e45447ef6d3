// What the tests that run the tandem binary as a user would (lstm_command_test,
// dot_command_test) share: one subcommand run with its exit code and stderr, and a scratch
// directory that is fresh at the start and gone at the end.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/core/error.h"

namespace tandem::cli_test {
namespace fs = std::filesystem;

struct Outcome {
  int code = -1;
  std::string err;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// `env` is prefixed to the command line (e.g. "TANDEM_INJECT=x"). `timeout`: a hang (a FIFO
// read, say) is a failure (exit 124), not a blocked test.
inline Outcome run_subcommand(const std::string& sub, const std::string& args, const std::string& env = "") {
  static int counter = 0;
  const fs::path err = fs::temp_directory_path() / cat("tandem_", sub, "_err_", ::getpid(), "_", counter++);
  const std::string cmd = cat(env, " timeout 120 ", TANDEM_BIN, " ", sub, " ", args, " 2>", err.string(), " >/dev/null");
  const int status = std::system(cmd.c_str());
  Outcome r{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(err)};
  fs::remove(err);
  return r;
}

struct ScratchDir {
  fs::path path;
  explicit ScratchDir(const std::string& name) {
    path = fs::temp_directory_path() / cat(name, "_", ::getpid());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() { fs::remove_all(path); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string operator/(const std::string& f) const { return (path / f).string(); }
};

}  // namespace tandem::cli_test
