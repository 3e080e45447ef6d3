// Case workers (case_workers.h): fork and exec of /proc/self/exe with the saved arguments and
// TANDEM_CASE_WORKER=FD:FIRST; lines "B slot" and "R {record}" on the pipe; waitpid for how
// the worker ended.
#include "runners/cli/case_workers.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/exit_codes.h"
#include "engine/core/check.h"
#include "engine/core/error.h"

extern char** environ;

namespace tandem {
namespace {
std::vector<std::string> g_args;
constexpr const char* kVariable = "TANDEM_CASE_WORKER";

void write_line(int fd, const std::string& line) {
  std::string s = line + "\n";
  for (size_t at = 0; at < s.size();) {
    const ssize_t n = ::write(fd, s.data() + at, s.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::_Exit(exit_code::infrastructure_error);  // the parent is gone
    at += size_t(n);
  }
}

std::string how_it_died(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return cat("the process died of signal ", sig, " (SIG", name ? name : "?", ") in this case");
  }
  return cat("the process exited with code ", WEXITSTATUS(status), " in the middle of this case");
}

struct Worker {
  pid_t pid = -1;
  FILE* in = nullptr;
};

// A worker for slots from `first` on: the parent keeps the read end, the child the write end.
Worker start_worker(size_t first) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(ErrorKind::internal, "pipe failed", "too many open files?");
  // Built before fork: between fork and exec only async-signal-safe calls.
  std::vector<std::string> env_store;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, kVariable, std::strlen(kVariable)) != 0) env_store.emplace_back(*e);
  env_store.push_back(cat(kVariable, "=", fds[1], ":", first));
  std::vector<char*> envp, argv;
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  for (auto& s : g_args) argv.push_back(s.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(ErrorKind::internal, "fork failed", "too many processes? try again");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a parent killed (a timeout) takes its worker along
    ::fcntl(fds[1], F_SETFD, 0);  // the write end survives exec
    ::execve("/proc/self/exe", argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  return {pid, ::fdopen(fds[0], "r")};
}

// Reads a worker's lines until it closes the pipe; returns the slot in flight when it did
// (none when every slot it began has its record) and advances *next past each finished one.
std::optional<size_t> drain(Worker& w, size_t* next, const std::function<void(size_t, nlohmann::json)>& on_record,
                            const std::function<bool()>& stop) {
  std::optional<size_t> in_flight;
  char* line = nullptr;
  size_t cap = 0;
  ssize_t n;
  while ((n = ::getline(&line, &cap, w.in)) > 0) {
    if (line[0] == 'B') {
      in_flight = std::strtoull(line + 2, nullptr, 10);
    } else if (line[0] == 'R' && in_flight) {
      on_record(*in_flight, nlohmann::json::parse(line + 2, line + n));
      *next = *in_flight + 1;
      in_flight.reset();
      if (stop && stop()) {  // the caller has what it needs: end the worker, keep no slot in flight
        ::kill(w.pid, SIGKILL);
        break;
      }
    }
  }
  std::free(line);
  std::fclose(w.in);
  return in_flight;
}
}  // namespace

void save_invocation(int argc, char** argv) { g_args.assign(argv, argv + argc); }

void CaseWorker::begin(size_t slot) const { write_line(fd, cat("B ", slot)); }

void CaseWorker::done(nlohmann::json record) const {
  const std::string* broken = check::device_context_broken();
  if (broken) {
    const std::string m = record.value("message", std::string());
    record["message"] = m + (m.empty() ? "" : "; ") + "this case left the device context broken (" + *broken +
                        "): tandem went on with the next case in a new process";
  }
  write_line(fd, "R " + record.dump());
  if (broken) ::_exit(kFreshWorkerExit);  // no destructors: they would call into the broken context
}

bool is_case_worker() {
  const char* v = std::getenv(kVariable);
  return v && *v;
}

std::optional<CaseWorker> case_worker_role() {
  const char* v = std::getenv(kVariable);
  if (!v || !*v) return std::nullopt;
  CaseWorker w;
  char* rest = nullptr;
  w.fd = int(std::strtol(v, &rest, 10));
  w.first = (rest && *rest == ':') ? std::strtoull(rest + 1, nullptr, 10) : 0;
  ::unsetenv(kVariable);  // a process the case starts is no worker
  return w;
}

int run_in_workers(size_t total, const std::function<void(size_t, nlohmann::json)>& on_record,
                   const std::function<nlohmann::json(size_t, const std::string&)>& crash_record,
                   const std::function<bool()>& stop) {
  size_t next = 0;
  while (next < total) {
    Worker w = start_worker(next);
    const std::optional<size_t> in_flight = drain(w, &next, on_record, stop);
    int status = 0;
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {}
    if (stop && stop()) return exit_code::pass;
    const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!in_flight && WIFEXITED(status) && WEXITSTATUS(status) == kFreshWorkerExit) continue;  // context broken
    if (in_flight && !clean) {  // died inside a case: record it, go on with the next
      on_record(*in_flight, crash_record(*in_flight, how_it_died(status)));
      next = *in_flight + 1;
    } else if (!clean) {  // outside any case (start-up, bad input): it said why
      return WIFEXITED(status) ? WEXITSTATUS(status) : exit_code::infrastructure_error;
    } else if (next < total) {
      throw Error(ErrorKind::internal, cat("a case worker ended cleanly after ", next, " of ", total, " cases"),
                  "run with --in-process to see the cases run in one process");
    }
  }
  return exit_code::pass;
}

}  // namespace tandem
