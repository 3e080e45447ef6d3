// Case workers (case_workers.h): fork and exec of /proc/self/exe with the saved arguments and
// TANDEM_CASE_WORKER=FD:FIRST; lines "B slot" and "R {record}" on the pipe; waitpid for how
// the worker ended.
#include "runners/cli/case_workers.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include "common/exit_codes.h"
#include "engine/core/check.h"
#include "engine/core/error.h"
#include "runners/cli/option_checks.h"

extern char** environ;

namespace tandem {
namespace {
std::vector<std::string> g_args;
constexpr const char* kVariable = "TANDEM_CASE_WORKER";
// A worker's OpenMP threads (oneDNN's products) sleep at a barrier instead of spinning, unless
// the user chose: on a shared host a spinning thread bills the process CPU time for as long as
// its partner waits for a core, which moved the single-run gate's CPU-time ratios 26 % (median
// case) to 5-fold between A/A runs at load 15; passive, 2 % (docs/CI.md, the single-run gate).
// OpenBLAS's own waits yield already. libgomp reads it once, at load: hence here, before exec.
constexpr const char* kWaitPolicy = "OMP_WAIT_POLICY";

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
  int fd = -1;  // the read end of its pipe
};

using RecordFn = std::function<void(size_t, nlohmann::json)>;
using CrashFn = std::function<nlohmann::json(size_t, const std::string&)>;
using StopFn = std::function<bool()>;

std::string ran_past(double limit_s) {
  char s[32];
  std::snprintf(s, sizeof s, "%.0f", limit_s);
  return cat("the case ran past the per-case limit of ", s, " s (--case-timeout) and its process was killed");
}

// A worker for slots from `first` on: the parent keeps the read end, the child the write end.
Worker start_worker(size_t first) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(ErrorKind::internal, "pipe failed", "too many open files?");
  // Built before fork: between fork and exec only async-signal-safe calls.
  std::vector<std::string> env_store;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, kVariable, std::strlen(kVariable)) != 0) env_store.emplace_back(*e);
  env_store.push_back(cat(kVariable, "=", fds[1], ":", first));
  if (!std::getenv(kWaitPolicy)) env_store.push_back(cat(kWaitPolicy, "=PASSIVE"));
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
  return {pid, fds[0]};
}

// How a worker's pipe ended: the slot in flight then (none when every slot it began has its
// record) and whether the worker went silent past the limit (then it is killed).
struct Drained {
  std::optional<size_t> in_flight;
  bool timed_out = false;
  bool stopped = false;  // the caller's stop() said it has what it needs after a record
};

// One complete line from the worker: "B slot" or "R {record}". A line the worker did not
// finish (killed mid-write) never reaches here; a record that does not parse is a crash.
void take_line(const std::string& line, Drained& d, size_t* next, const RecordFn& on_record, const StopFn& stop) {
  if (line.rfind("B ", 0) == 0) {
    d.in_flight = std::strtoull(line.c_str() + 2, nullptr, 10);
  } else if (line.rfind("R ", 0) == 0 && d.in_flight) {
    nlohmann::json rec = nlohmann::json::parse(line.begin() + 2, line.end(), nullptr, /*allow_exceptions=*/false);
    if (rec.is_discarded()) return;  // left in flight: recorded as the worker's death
    on_record(*d.in_flight, std::move(rec));
    *next = *d.in_flight + 1;
    d.in_flight.reset();
    d.stopped = stop && stop();
  }
}

// Reads a worker's lines until it closes the pipe or stays silent for `limit_s` (a case,
// or the start-up before the first, running past the per-case limit; 0: no limit); advances
// *next past each finished slot.
Drained drain(Worker& w, size_t* next, const RecordFn& on_record, double limit_s, const StopFn& stop) {
  using clock = std::chrono::steady_clock;
  Drained d;
  std::string buf;
  char chunk[65536];
  auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(limit_s));
  for (;;) {
    int wait_ms = -1;
    if (limit_s > 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
      if (left <= 0) { d.timed_out = true; break; }
      wait_ms = int(std::min<int64_t>(left, 60000));
    }
    pollfd p{w.fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // the deadline is checked above
    const ssize_t n = ::read(w.fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the worker closed its end: it exited or died
    buf.append(chunk, size_t(n));
    size_t at = 0;
    for (size_t nl; (nl = buf.find('\n', at)) != std::string::npos; at = nl + 1) {
      take_line(buf.substr(at, nl - at), d, next, on_record, stop);
      if (d.stopped) break;
      deadline = clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(limit_s));
    }
    if (d.stopped) break;
    buf.erase(0, at);
  }
  ::close(w.fd);
  return d;
}

// The slots [from, total) as errors when no worker gets through them: each keeps a record.
void give_up(size_t from, size_t total, const std::string& why, const RecordFn& on_record, const CrashFn& crash_record) {
  std::cerr << "tandem: " << why << "; the " << (total - from) << " cases not run are errors\n";
  for (size_t i = from; i < total; ++i) on_record(i, crash_record(i, why));
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

int run_in_workers(size_t total, const RecordFn& on_record, const CrashFn& crash_record, double case_limit_s,
                   const StopFn& stop) {
  constexpr int kStartsWithoutProgress = 3;  // a worker killed from outside is replaced; one that never starts is not
  size_t next = 0;
  int fruitless = 0;
  while (next < total) {
    const size_t first = next;
    Worker w = start_worker(next);
    const Drained d = drain(w, &next, on_record, case_limit_s, stop);
    if (d.timed_out || d.stopped) ::kill(w.pid, SIGKILL);
    int status = 0;
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {}
    if (d.stopped) return exit_code::pass;
    if (!d.in_flight && WIFEXITED(status) && WEXITSTATUS(status) == kFreshWorkerExit) continue;  // context broken
    const bool clean = !d.timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (d.in_flight && !clean) {  // died or stuck inside a case: record it, go on with the next
      on_record(*d.in_flight, crash_record(*d.in_flight, d.timed_out ? ran_past(case_limit_s) : how_it_died(status)));
      next = *d.in_flight + 1;
      fruitless = 0;
    } else if (!clean && WIFEXITED(status) && !d.timed_out) {  // outside any case (start-up, bad input): it said why
      return WEXITSTATUS(status);
    } else if (!clean) {  // killed or stuck between cases or before its first: a new worker goes on
      fruitless = next > first ? 0 : fruitless + 1;
      std::cerr << "tandem: a case worker " << (d.timed_out ? "went silent past the per-case limit" : how_it_died(status).substr(12))
                << " between cases; a new one goes on from case " << next + 1 << " of " << total << "\n";
      if (fruitless == kStartsWithoutProgress) {
        give_up(next, total, cat(kStartsWithoutProgress, " case workers in a row ended before running a case"), on_record,
                crash_record);
        return exit_code::pass;
      }
    } else if (next < total) {
      throw Error(ErrorKind::internal, cat("a case worker ended cleanly after ", next, " of ", total, " cases"),
                  "run with --in-process to see the cases run in one process");
    }
  }
  return exit_code::pass;
}

double default_case_limit_s() {
  double load[1] = {0};
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  const double busy = ::getloadavg(load, 1) == 1 && cpus > 0 ? load[0] / double(cpus) : 1.0;
  return kCaseLimitBaseS * std::max(1.0, busy);
}

void add_case_timeout_option(CLI::App& cmd, double& seconds) {
  cmd.add_option("--case-timeout", seconds,
                 "seconds one case may run in its worker before it is killed and recorded as an error (0: no limit; "
                 "default 600, times the load per core when the machine is busier than one job per core)")
      ->check(in_range(0, 7 * 86400, "--case-timeout is seconds per case, e.g. 600, or 0 for no limit"));
}

}  // namespace tandem
