// The harness's lockstep across ranks (see rank_lockstep.h): MPI control-plane calls only,
// each under a job-watchdog scope that names the case, so a stalled rank is reported as
// "tandem run: <what> of <case>" by the ranks left waiting.
#include "harness/rank_lockstep.h"

#include "engine/comm/job.h"
#include "engine/comm/mpi_communicator.h"
#include "engine/comm/validate.h"
#include "engine/comm/watchdog.h"
#include "engine/core/faults.h"
#include "engine/core/rank_env.h"
#include "harness/rank_reduce.h"

namespace tandem {
namespace {

comm::WatchScope watch(const std::string& what, const std::string& case_name) {
  return comm::WatchScope(&comm::job_watchdog(), [w = "tandem run: " + what + " of " + case_name] { return w; });
}

}  // namespace

bool launched_multi_rank() { return comm::launcher_world_size() > 1; }

RankLockstep::RankLockstep(double watchdog_s) {
  comm::set_job_timeout(watchdog_s);  // before MPI_Init, so a rank that never starts is caught
  comm::Communicator& world = comm::mpi_world();
  rank_ = world.rank();
  size_ = world.size();
}

void RankLockstep::agree_on_run(const std::string& signature) {
  comm::agree(comm::mpi_world(), "tandem run", signature, [] {},
              "launch every rank with the same command line (runners/launch/mpirun.sh NP run ... passes one to all)");
}

void RankLockstep::agree_on(const std::function<void()>& local) { comm::agree_verdict(comm::mpi_world(), local); }

bool RankLockstep::agree_to_time(const std::string& case_name, const CaseResult& mine) {
  comm::Communicator& world = comm::mpi_world();
  std::vector<int64_t> passed;
  {
    auto w = watch("the agreement on timing", case_name);
    passed = comm::all_gather_ints(world, {mine.verdict == Verdict::pass ? 1 : 0});
  }
  for (int64_t p : passed)
    if (!p) return false;
  auto w = watch("the barrier before timing", case_name);
  world.barrier();
  return true;
}

CaseResult RankLockstep::agree_result(const std::string& case_name, const CaseResult& mine, double flops,
                                      nlohmann::json* ranks_json) {
  RankOutcome o;
  o.rank = rank_;
  o.host = host_name();
  o.verdict = mine.verdict;
  o.message = mine.message;
  o.correctness = mine.correctness;
  o.samples_s = mine.samples_s;
  o.cpu_samples_s = mine.cpu_samples_s;
  if (const FaultInfo* f = injected_fault()) o.injected_fault = f->name;
  std::vector<std::string> all;
  {
    auto w = watch("the gather of every rank's outcome", case_name);
    all = comm::all_gather_strings(comm::mpi_world(), outcome_to_json(o).dump());
  }
  std::vector<RankOutcome> per_rank;
  for (const std::string& s : all) per_rank.push_back(outcome_from_json(nlohmann::json::parse(s)));
  CaseResult r = agree_outcomes(per_rank, flops, ranks_json);
  r.info = mine.info;
  return r;
}

}  // namespace tandem
