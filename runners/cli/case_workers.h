// Crash isolation for a single-process `tandem run` / `check`: the cases run in
// a worker process — this binary executed again with the same arguments — that announces each
// case before running it and sends its record after, one line each on a pipe. The parent
// writes the records, counts and prints. When the worker dies inside a case (a segfault in the
// engine, an abort), that case gets an infrastructure-error record naming the signal and a new
// worker goes on from the next case, so one crashing case never loses another's record. A case
// that leaves the device context broken (a sticky CUDA error: engine/core/check.h) ends its
// worker after its record, so the next case starts in a fresh process with a fresh context.
// Under mpirun/srun (lockstep ranks) the cases stay in-process: the launcher owns the ranks.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

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

// Parent: runs slots [0, total) in workers. on_record(slot, record) for each finished slot, in
// order; a slot whose worker died gets crash_record(slot, "how it died"). Returns 0, or the
// exit code of a worker that ended with an error outside any case (it printed why).
// `stop` (optional), asked after each record: true ends the run there (the worker is killed).
int run_in_workers(size_t total, const std::function<void(size_t, nlohmann::json)>& on_record,
                   const std::function<nlohmann::json(size_t, const std::string&)>& crash_record,
                   const std::function<bool()>& stop = {});

}  // namespace tandem
