// One child process of `tandem faults`: the same binary (or mpirun around it) with a fault
// injected, its output in a log file, killed with its whole process group past a deadline.
#pragma once
#include <string>
#include <vector>

namespace tandem {

struct ChildResult {
  int exit_code = -1;      // the exit status, -1 when killed by a signal or the deadline
  int signal = 0;          // the signal that ended it, 0 if none
  bool timed_out = false;  // killed at the deadline
  double seconds = 0;
};

// Runs argv[0] (a path) with argv, stdout and stderr into log_path, TANDEM_INJECT removed
// from its environment (the fault is passed with --inject).
ChildResult run_child(const std::vector<std::string>& argv, const std::string& log_path, double timeout_s);

// The path of the running tandem binary (/proc/self/exe).
std::string self_executable();

}  // namespace tandem
