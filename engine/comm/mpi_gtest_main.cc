// GoogleTest main for tests under MPI: every rank runs every test; only rank 0 prints. Each
// rank records its own failures; at the end they are gathered to rank 0, which prints them
// with rank and host, and the verdict (failed anywhere = failed) is the exit code of every
// rank. TANDEM_SELFTEST_FAIL_RANK=r makes SelfTest.FailsOnChosenRank fail on rank r only.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "engine/comm/mpi_communicator.h"

namespace {

class FailureCollector : public ::testing::EmptyTestEventListener {
 public:
  std::string log, current;
  // (UnitTest::current_test_info() would deadlock inside OnTestPartResult: remember it here.)
  void OnTestStart(const ::testing::TestInfo& info) override {
    current = std::string(info.test_suite_name()) + "." + info.name();
  }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    log += current + " at " +
           (r.file_name() ? r.file_name() : "?") + ":" + std::to_string(r.line_number()) + "\n" + r.summary() + "\n";
  }
};

}  // namespace

TEST(SelfTest, FailsOnChosenRank) {
  const char* r = std::getenv("TANDEM_SELFTEST_FAIL_RANK");
  if (!r) GTEST_SKIP() << "set TANDEM_SELFTEST_FAIL_RANK to prove a one-rank failure fails the run";
  EXPECT_NE(tandem::comm::mpi_world().rank(), std::atoi(r)) << "deliberate failure on this rank";
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  auto& world = tandem::comm::mpi_world();
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (world.rank() != 0) delete listeners.Release(listeners.default_result_printer());
  auto* collector = new FailureCollector;
  listeners.Append(collector);
  int rc = RUN_ALL_TESTS();
  std::vector<std::string> logs = tandem::comm::all_gather_strings(world, collector->log);
  std::vector<std::string> hosts = tandem::comm::all_gather_strings(world, tandem::comm::host_name());
  bool failed = false;
  for (int r = 0; r < world.size(); ++r) {
    if (logs[r].empty()) continue;
    failed = true;
    if (world.rank() == 0) std::printf("---- failures on rank %d of %d (host %s):\n%s", r, world.size(), hosts[r].c_str(), logs[r].c_str());
  }
  failed = failed || rc != 0;
  if (world.rank() == 0)
    std::printf("[mpi] %d ranks: %s\n", world.size(), failed ? "FAILED (on at least one rank)" : "all passed");
  std::fflush(stdout);
  return failed ? 1 : 0;
}
