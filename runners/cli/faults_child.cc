// Child processes for `tandem faults` (faults_child.h): fork, own process group, exec, poll.
#include "runners/cli/faults_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <thread>

#include "engine/core/error.h"

namespace tandem {

std::string self_executable() {
  char buf[PATH_MAX] = {0};
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw Error(ErrorKind::internal, "cannot read /proc/self/exe", "run tandem faults on Linux");
  return std::string(buf, size_t(n));
}

ChildResult run_child(const std::vector<std::string>& argv, const std::string& log_path, double timeout_s) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) throw Error(ErrorKind::internal, "fork failed", "too many processes? try again");
  if (pid == 0) {
    ::setpgid(0, 0);  // its own group: a deadline kills mpirun and every rank together
    int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    ::unsetenv("TANDEM_INJECT");
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ChildResult r;
  int status = 0;
  for (;;) {
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (w == pid) break;
    if (r.seconds > timeout_s) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.timed_out = true;
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace tandem
