// rank_lockstep.h in a build without MPI: never multi-rank, so the harness runs every
// process alone (a launcher's ranks then each run every case, and only rank 0 writes).
#include "harness/rank_lockstep.h"

#include "engine/core/error.h"

namespace tandem {

bool launched_multi_rank() { return false; }

RankLockstep::RankLockstep(double) {
  throw Error(ErrorKind::unsupported, "multi-rank runs need MPI", "configure with Open MPI found (find_package(MPI))");
}
void RankLockstep::agree_on_run(const std::string&) {}
void RankLockstep::agree_on(const std::function<void()>& local) { local(); }
bool RankLockstep::agree_to_time(const std::string&, const CaseResult& mine) { return mine.verdict == Verdict::pass; }
CaseResult RankLockstep::agree_result(const std::string&, const CaseResult& mine, double, nlohmann::json*) { return mine; }

}  // namespace tandem
