// Multi-rank runs of the case harness (`tandem run|check` under mpirun/srun, one rank per GPU or per CPU socket): every
// rank runs the same cases in the same order, in lockstep. Per case the ranks agree after the check whether to time it
// (only when every rank passed), meet at a barrier before the timed loop, and gather their outcomes afterwards; the
// agreed verdict and the timing reduced over ranks come from rank_reduce.h, the same on every rank, and only rank 0
// writes them. Every blocking call runs under the job watchdog (engine/comm/job.h), so a rank that stalls or dies ends
// the job with exit 5, naming what the others were waiting in, instead of a hang. Built only with MPI.
#pragma once
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/case.h"

namespace tandem {

// True when a launcher announces a world of more than one rank (the harness then runs in
// lockstep); false without MPI or for a single process.
bool launched_multi_rank();

class RankLockstep {
 public:
  // Starts MPI (under the job watchdog, timeout watchdog_s) unless it is up already.
  explicit RankLockstep(double watchdog_s);
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Every rank must run the same sequence of cases with the same options: the signature
  // (case names, devices, repetitions ...) is agreed; ranks launched differently end with
  // the same bad-input error (exit 4) naming rank 0's and the other rank's.
  void agree_on_run(const std::string& signature);
  // Runs local (rank 0 creating --out, say) on this rank and agrees on its outcome: a
  // failure on any rank throws on every rank, naming the rank.
  void agree_on(const std::function<void()>& local);
  // RunOptions::before_timing: whether every rank passed the check; if so, a barrier.
  bool agree_to_time(const std::string& case_name, const CaseResult& mine);
  // Gathers every rank's outcome of the case and returns the agreed result (rank_reduce.h);
  // *ranks_json gets the per-rank statistics.
  CaseResult agree_result(const std::string& case_name, const CaseResult& mine, double flops,
                          nlohmann::json* ranks_json);

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace tandem
