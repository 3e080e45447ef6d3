// Crash isolation for a single-process `tandem run` / `check`: the cases run in a worker process — this binary executed
// again with the same arguments — that announces each case before running it and sends its record after, one line each
// on a pipe. The parent writes the records, counts and prints. When the worker dies inside a case (a segfault in the
// engine, an abort), that case gets an infrastructure-error record naming the signal and a new worker goes on from the
// next case, so one crashing case never loses another's record. A case that runs past the per-case limit (a hang, a
// stopped worker) is killed the same way. A case that leaves the device context broken (a sticky CUDA error:
// engine/core/check.h) ends its worker after its record, so the next case starts in a fresh process with a fresh
// context. Under mpirun/srun (lockstep ranks) the cases stay in-process: the launcher owns the ranks.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace tandem {

// main(): the arguments a worker is started with.
void save_invocation(int argc, char** argv);

// Set in a worker: the pipe to the parent and the first case slot to run.
struct CaseWorker {
  int fd = -1;
  size_t first = 0;
  void begin(size_t slot) const;                  // "this slot runs now"
  // Its record; then, when the case left the device context broken, the worker ends (exit
  // kFreshWorkerExit) with a note in the record, and the parent starts a fresh one.
  void done(nlohmann::json record) const;
};
inline constexpr int kFreshWorkerExit = 86;
std::optional<CaseWorker> case_worker_role();  // read once: a process the case starts is no worker
bool is_case_worker();  // before case_worker_role(): notes the parent printed are not repeated

// Parent: runs slots [0, total) in workers. on_record(slot, record) for each finished slot, in order; a slot whose
// worker died in it, or ran past case_limit_s seconds (then it is killed; 0: no limit), gets crash_record(slot, "why").
// A worker killed or stuck between cases is replaced; after three in a row that run no case, every remaining slot gets
// crash_record. Returns 0, or the exit code of a worker that exited with an error outside any case (it printed why: bad
// input found at start-up). `stop` (optional), asked after each record: true ends the run there (the worker is killed).
int run_in_workers(size_t total, const std::function<void(size_t, nlohmann::json)>& on_record,
                   const std::function<nlohmann::json(size_t, const std::string&)>& crash_record, double case_limit_s,
                   const std::function<bool()>& stop = {});

// The per-case limit when --case-timeout is not given: kCaseLimitBaseS seconds, times the
// machine's load per core when it is above 1 (a loaded machine runs every case slower).
constexpr double kCaseLimitBaseS = 600;
double default_case_limit_s();
// --case-timeout SECONDS on a case-running command (run, check, bench); `seconds` stays
// negative when it is not given.
void add_case_timeout_option(CLI::App& cmd, double& seconds);

}  // namespace tandem
