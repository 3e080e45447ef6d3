// One case's outcome agreed across the ranks of a multi-rank `tandem run` (mpirun/srun), and
// its timing reduced over ranks as distributed benchmarks do: per iteration, the slowest
// rank's time (the job waits for it), with each rank's own min and median kept beside it so
// a slow rank stays visible. rank_lockstep.h gathers the outcomes; this file only decides,
// with no MPI, so its rules are unit-tested on made-up outcomes (rank_reduce_test.cc).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/case.h"

namespace tandem {

// What one rank sends for one case.
struct RankOutcome {
  int rank = 0;
  std::string host;
  Verdict verdict = Verdict::pass;
  std::string message;
  nlohmann::json correctness;
  std::vector<double> samples_s, cpu_samples_s;
  std::string injected_fault;  // engine/core/faults.h: this rank ran with a fault, "" if none
};
nlohmann::json outcome_to_json(const RankOutcome& o);
RankOutcome outcome_from_json(const nlohmann::json& j);

// The job's verdict from every rank's: fail if any rank failed, else error if any rank hit an
// error, else skip if any rank skipped, else pass.
Verdict agreed_verdict(const std::vector<Verdict>& per_rank);

// per_rank[r] is rank r's outcome. The result carries the agreed verdict; for fail, error and skip a message naming
// every rank that had it ("failed on rank 1 of 2 (host h): ..."), and the correctness of the first such rank (else rank
// 0's). When every rank passed and timed, the samples are the per-iteration maximum over ranks of the first n
// iterations (n: the fewest any rank timed, the same on every rank unless --min-time let them differ), and the metrics
// (time_median, gflops per rank, gflops_all_ranks) come from them. *ranks_json gets {"ranks", "time_reduce",
// "iterations_reduced", "slowest_rank", "per_rank": [{"rank", "host", "verdict", "repetitions", "min", "median",
// "max"}]}, the per-rank statistics over the same n iterations, so each rank's median is at most the reduced one; a
// rank that ran with an injected fault has "injected_fault" in its entry and in "injected_faults".
CaseResult agree_outcomes(const std::vector<RankOutcome>& per_rank, double flops, nlohmann::json* ranks_json);

}  // namespace tandem
