// The CHECK formatter (engine/core/check.h): every failure names the library, expression,
// file:line, host, rank and device, and the library's own words; throw_failure reads the
// host and the launcher's rank from the process it runs in.
#include "engine/core/check.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "engine/core/check_test_util.h"
#include "engine/core/rank_env.h"

namespace tandem::check {
namespace {

// Prints both strings when the part is missing.
::testing::AssertionResult Has(const std::string& message, const std::string& part) {
  if (message.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << part << "' is not in '" << message << "'";
}

TEST(CheckFormatter, NamesEveryPartOfTheFailure) {
  std::string m = failure_message({"cuBLAS", "cublasSgemm(h, ...)", "engine/cuda/x.cc", 42},
                                  Place{"node7", 3, 1}, "CUBLAS_STATUS_EXECUTION_FAILED");
  EXPECT_EQ(m, "cuBLAS call failed: cublasSgemm(h, ...) at engine/cuda/x.cc:42 "
               "[host node7, rank 3, cuda device 1]: CUBLAS_STATUS_EXECUTION_FAILED");
}

TEST(CheckFormatter, SaysWhenRankOrDeviceDoNotApply) {
  std::string mpi = failure_message({"MPI", "MPI_Barrier(c)", "f.cc", 1}, Place{"h", -1, kNoDevice}, "e");
  EXPECT_TRUE(Has(mpi, "[host h, rank none (not launched)]"));
  EXPECT_FALSE(Has(mpi, "device"));
  std::string cuda = failure_message({"CUDA", "x", "f.cc", 1}, Place{"h", 0, kUnknownDevice}, "e");
  EXPECT_TRUE(Has(cuda, "rank 0, cuda device unknown]"));
}

// A scoped environment variable (restored afterwards, so other tests see the real launcher).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() { had_ ? (void)setenv(name_, old_.c_str(), 1) : (void)unsetenv(name_); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(CheckThrow, CarriesHostLauncherRankAndDevice) {
  ScopedEnv rank("OMPI_COMM_WORLD_RANK", "5");
  const int line = __LINE__;
  std::string m = failure_message_of([&] {
    throw_failure({"NCCL", "ncclAllReduce(s, r, n)", __FILE__, line}, 2, "unhandled cuda error");
  });
  EXPECT_TRUE(Has(m, "NCCL call failed: ncclAllReduce(s, r, n)"));
  EXPECT_TRUE(Has(m, std::string(__FILE__) + ":" + std::to_string(line)));
  EXPECT_TRUE(Has(m, "host " + host_name() + ", rank 5, cuda device 2]"));
  EXPECT_TRUE(Has(m, ": unhandled cuda error"));
}

TEST(CheckThrow, FallsBackToTheMpiRankWithoutALauncher) {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (std::getenv(v)) GTEST_SKIP() << "launched under " << v << "; the launcher's rank wins";
  std::string m = failure_message_of(
      [] { throw_failure({"MPI", "MPI_Allreduce(...)", "f.cc", 9}, kNoDevice, "MPI_ERR_TRUNCATE", 2); });
  EXPECT_TRUE(Has(m, ", rank 2]: MPI_ERR_TRUNCATE"));
}

}  // namespace
}  // namespace tandem::check
