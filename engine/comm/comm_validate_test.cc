// Validation before launch under MPI: a bad argument on any rank (or arguments that differ
// between ranks) is the same bad-input error on every rank, and the communicator still
// works afterwards. Also the watchdog's report on a collective that does not finish.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "engine/comm/collectives.h"
#include "engine/comm/mpi_communicator.h"
#include "engine/comm/job.h"
#include "engine/comm/mpi_test_world.h"
#include "engine/comm/validate.h"
#include "engine/comm/watchdog.h"
#include "engine/core/error.h"

namespace tandem::comm {
namespace {

using namespace mpi_test;

// Runs f, expects a bad-input error, and checks every rank saw the very same message.
std::string same_error_everywhere(const std::function<void()>& f) {
  std::string msg;
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    msg = e.what();
  }
  EXPECT_FALSE(msg.empty()) << "no error raised";
  for (const std::string& m : all_gather_strings(mpi_world(), msg)) EXPECT_EQ(m, msg);
  // And the communicator is still healthy.
  Tensor one = Tensor::from_f64({1}, {1}, DType::f32);
  EXPECT_EQ(psum(ctx(), one).to_f64()[0], double(n()));
  return msg;
}

Tensor x4() { return Tensor::from_f64({1, 2, 3, 4}, {4}, DType::f32); }

TEST(Validation, GroupsMustPartition) {
  std::string m = same_error_everywhere([] { psum(ctx(), x4(), {{0}, {0}}); });
  EXPECT_NE(m.find("exactly once"), std::string::npos) << m;
  same_error_everywhere([] { psum(ctx(), x4(), {{0, n()}}); });
  if (n() >= 3) same_error_everywhere([&] { all_gather(ctx(), x4(), 0, false, {{0, 1}, {}}); });
}

TEST(Validation, UnevenGroupsOnlyForReductions) {
  if (n() < 3) GTEST_SKIP() << needs_ranks("at least 3", n());
  Groups uneven{{0, 1}, {}};
  for (int r = 2; r < n(); ++r) uneven[1].push_back(r);
  if (uneven[0].size() == uneven[1].size()) GTEST_SKIP() << needs_ranks("3, or 5 or more,", n()) << " (groups of unequal size)";
  std::string m = same_error_everywhere([&] { all_gather(ctx(), x4(), 0, false, uneven); });
  EXPECT_NE(m.find("same size"), std::string::npos) << m;
}

TEST(Validation, PermutationPairsUnique) {
  std::string m = same_error_everywhere([] { ppermute(ctx(), x4(), {{0, 0}, {0, 0}}); });
  EXPECT_NE(m.find("unique"), std::string::npos) << m;
  same_error_everywhere([] { ppermute(ctx(), x4(), {{0, n()}}); });
}

TEST(Validation, Divisibility) {
  Tensor odd = Tensor::from_f64(std::vector<double>(size_t(n() + 1), 1), {n() + 1}, DType::f32);
  if (n() > 1) {
    same_error_everywhere([&] { psum_scatter(ctx(), odd, 0, true); });
    same_error_everywhere([&] { all_to_all(ctx(), odd, 0, 0, true); });
  }
  same_error_everywhere([&] { all_to_all(ctx(), odd, 0, 0, false); });
}

TEST(Validation, ShapesDifferingBetweenRanks) {
  if (n() < 2) GTEST_SKIP() << needs_ranks("at least 2", n());
  Tensor x = Tensor::from_f64(std::vector<double>(size_t(me() == 1 ? 5 : 4), 1), {me() == 1 ? 5 : 4}, DType::f32);
  std::string m = same_error_everywhere([&] { psum(ctx(), x); });
  EXPECT_NE(m.find("disagree"), std::string::npos) << m;
}

TEST(Validation, BadArgumentOnOneRankOnly) {
  if (n() < 2) GTEST_SKIP() << needs_ranks("at least 2", n());
  // Only the last rank passes an out-of-range source: every rank reports it.
  Tensor x = x4();
  std::string m = same_error_everywhere([&] { pbroadcast(ctx(), x, me() == n() - 1 ? n() : 0); });
  EXPECT_NE(m.find("rank"), std::string::npos) << m;
}

TEST(Validation, RaggedContract) {
  // Everyone sends one row to everyone, but the last rank expects 2 rows from rank 0.
  RaggedOffsets o;
  for (int p = 0; p < n(); ++p) {
    o.input_offsets.push_back(p);
    o.send_sizes.push_back(1);
    o.output_offsets.push_back(me() == 0 && p == n() - 1 ? 0 : me());
    o.recv_sizes.push_back(me() == n() - 1 && p == 0 ? 2 : 1);
  }
  Tensor operand = Tensor::zeros({n()}, DType::f32), output = Tensor::zeros({n()}, DType::f32);
  std::string m = same_error_everywhere([&] { ragged_all_to_all(ctx(), operand, output, o); });
  EXPECT_NE(m.find("all_to_all(recv_sizes"), std::string::npos) << m;
  o.recv_sizes.assign(size_t(n()), 1);
  o.output_offsets.assign(size_t(n()), n());  // writes past every receiver's output
  same_error_everywhere([&] { ragged_all_to_all(ctx(), operand, output, o); });
  o.output_offsets.assign(size_t(n()), me());
  o.send_sizes.assign(size_t(n()), 2);
  o.recv_sizes.assign(size_t(n()), 2);  // consistent, but input slices overrun the operand
  same_error_everywhere([&] { ragged_all_to_all(ctx(), operand, output, o); });
}

TEST(Validation, RaggedContractInOneGroupOnly) {
  if (n() < 4 || n() % 2) GTEST_SKIP() << needs_ranks("an even number (4 or more) of", n());
  Groups pairs;
  for (int r = 0; r < n(); r += 2) pairs.push_back({r, r + 1});
  // Every pair exchanges one row each way, but the last rank expects 2 from its partner:
  // only that pair sees it, yet every rank of the world must report it.
  const int q = me() % 2;
  RaggedOffsets o{{0, 1}, {1, 1}, {q, q}, {me() == n() - 1 ? 2 : 1, 1}};
  Tensor operand = Tensor::zeros({2}, DType::f32), output = Tensor::zeros({2}, DType::f32);
  std::string m = same_error_everywhere([&] { ragged_all_to_all(ctx(), operand, output, o, pairs); });
  EXPECT_NE(m.find("rank " + std::to_string(n() - 2) + " sends 1 rows"), std::string::npos) << m;
}

// Without validation (a timed loop's calls) the receiver that sees a broken contract
// refuses to write, yet still completes the exchange, so the others do not hang.
TEST(Validation, RaggedUnvalidatedViolationRefusedWithoutAHang) {
  Collectives c(mpi_world());
  c.validate = false;
  RaggedOffsets o;
  for (int p = 0; p < n(); ++p) {
    o.input_offsets.push_back(p);
    o.send_sizes.push_back(1);
    o.output_offsets.push_back(me() == 0 && p == n() - 1 ? 2 * n() - 1 : me());  // past the last rank's rows
    o.recv_sizes.push_back(1);
  }
  Tensor operand = Tensor::zeros({n()}, DType::f32), output = Tensor::zeros({n()}, DType::f32);
  bool threw = false;
  try {
    ragged_all_to_all(c, operand, output, o);
  } catch (const Error& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find("writes rows"), std::string::npos) << e.what();
  }
  EXPECT_EQ(threw, me() == n() - 1);
  Tensor one = Tensor::from_f64({1}, {1}, DType::f32);
  EXPECT_EQ(psum(ctx(), one).to_f64()[0], double(n()));
}

// Run only by the ctest entry comm_mpi_watchdog_aborts (watchdog_abort_test.sh): every rank
// but TANDEM_SELFTEST_HANG_RANK enters a psum that rank never joins; their watchdogs must
// name the op, size and group, report themselves, and abort the job instead of hanging.
TEST(SelfTest, WatchdogAbortsAHungPsum) {
  const char* hang = std::getenv("TANDEM_SELFTEST_HANG_RANK");
  if (!hang) GTEST_SKIP() << "set TANDEM_SELFTEST_HANG_RANK to prove the watchdog aborts a hung collective";
  Watchdog w(mpi_world(), 1.0);
  Collectives c(mpi_world());
  c.watchdog = &w;
  c.validate = false;  // validation would itself be the collective that hangs
  // Enter together, so every stuck rank's watchdog fires within the other's grace period
  // (the test wants each of them named, not only the first to time out).
  mpi_world().barrier();
  if (me() == std::atoi(hang)) {
    std::this_thread::sleep_for(std::chrono::seconds(60));  // the abort ends this rank too
  } else {
    psum(c, Tensor::zeros({1024}, DType::f32));
  }
  ADD_FAILURE() << "the hung psum returned or the job was not aborted";
}

// What a test watchdog reported, read without a wall-clock margin that a loaded runner (load 6-10 on 2 cores) breaks: a
// check that it fired waits for the report (up to a minute) instead of sleeping a fixed 400 ms; a check that disarming
// stops it counts only an arm/disarm pair that ended within half the timeout (a thread descheduled longer than the
// timeout between the two would rightly be reported), then waits twice the timeout.
struct Reports {
  std::mutex mu;
  std::string text;
  std::function<void(const std::string&)> sink() {
    return [this](const std::string& r) { std::lock_guard<std::mutex> l(mu); text += r; };
  }
  std::string get() { std::lock_guard<std::mutex> l(mu); return text; }
  void clear() { std::lock_guard<std::mutex> l(mu); text.clear(); }
  std::string wait(double max_s = 60) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_s);
    while (get().empty() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return get();
  }
  // Runs begin_end (an arm and its disarm) until one run takes under timeout_s / 2; false if none did.
  template <class F>
  bool quick_pair(double timeout_s, F&& begin_end) {
    for (int attempt = 0; attempt < 50; ++attempt) {
      clear();
      const auto t0 = std::chrono::steady_clock::now();
      begin_end();
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < timeout_s / 2) {
        std::this_thread::sleep_for(std::chrono::duration<double>(2 * timeout_s));
        return true;
      }
    }
    return false;
  }
};

TEST(Watchdog, ReportsAHungCollective) {
  Watchdog w(mpi_world(), 0.1);
  Reports reports;
  w.on_expire = reports.sink();
  w.arm("psum f32[1024] groups=all");
  std::string report = reports.wait();
  w.disarm();
  EXPECT_NE(report.find("psum f32[1024]"), std::string::npos) << report;
  EXPECT_NE(report.find("rank " + std::to_string(me())), std::string::npos) << report;
  ASSERT_TRUE(reports.quick_pair(0.1, [&] { w.arm("quick"); w.disarm(); })) << "never ran an arm/disarm in 50 ms";
  EXPECT_TRUE(reports.get().empty()) << reports.get();
}

// Scopes nest (an op arms it, and each MPI call inside the op): the outermost scope is
// timed and described, and an inner scope's end does not disarm the outer one.
TEST(Watchdog, NestedScopesReportTheOutermost) {
  Watchdog w(mpi_world(), 0.1);
  Reports reports;
  w.on_expire = reports.sink();
  std::string report;
  {
    WatchScope outer(&w, [] { return std::string("psum f32[8]"); });
    { WatchScope inner(&w, [] { return std::string("MPI_Allreduce of 8 f32"); }); }
    report = reports.wait();
  }
  EXPECT_NE(report.find("in psum f32[8]"), std::string::npos) << report;
  ASSERT_TRUE(reports.quick_pair(0.1, [&] { WatchScope quick(&w, [] { return std::string("quick"); }); }))
      << "never ran a scope in 50 ms";
  EXPECT_TRUE(reports.get().empty()) << reports.get();
}

// A rank-local exception that is not tandem's (a failed file write) is agreed as an
// internal error naming the rank, so every rank ends the same way.
TEST(Agree, ForeignExceptionOnOneRankIsInternalEverywhere) {
  try {
    agree_verdict(mpi_world(), [] {
      if (me() == n() - 1) throw std::runtime_error("disk full");
    });
    ADD_FAILURE() << "no rank threw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::internal);
    EXPECT_NE(e.message().find("disk full"), std::string::npos) << e.message();
    if (n() > 1) {
      EXPECT_NE(e.message().find(cat("(rank ", n() - 1, ")")), std::string::npos) << e.message();
    }
  }
}

// Every MPI call arms the job watchdog (CallWatch), so arming must stay far below the cost of the smallest collective.
// Measured 17-57 ns per scope on the 2-core CI VM at load 16 (docs/LAUNCHING.md); the bound, 1 us, leaves ~20x headroom
// for a loaded machine and still fails if a clock read or an allocation per call comes back (~250 ns each there).
TEST(Watchdog, CallWatchIsCheap) {
  constexpr int kCalls = 200000;
  double best = 1e9;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) CallWatch w("MPI_Allreduce", 2, 256, "f32");
    best = std::min(best, std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / kCalls);
  }
  std::printf("[ CallWatch ] %.1f ns per watched MPI call (best of 3 x %d)\n", best, kCalls);
  EXPECT_LT(best, 1000.0);
}

}  // namespace
}  // namespace tandem::comm
