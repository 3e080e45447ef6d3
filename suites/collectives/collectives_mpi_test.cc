// Every collectives case (op × dtype × group layout) against the reference model, under mpirun at 1, 2, 3 and 4 ranks,
// on the MPI backend and on NCCL; a layout that does not fit the world size skips, and so does NCCL without a GPU.
#include <gtest/gtest.h>

#include "harness/harness.h"
#include "suites/register_suites.h"

namespace tandem {
namespace {

// Only this suite's cases (the other suites' registration is not this test's business).
const Registry& collectives_registry() {
  static Registry r = [] {
    Registry reg;
    register_collectives_suite(reg);
    return reg;
  }();
  return r;
}

class CollectiveCase : public ::testing::TestWithParam<const Case*> {};

void check_on(const Case& c, Device d) {
  RunOptions opts;
  opts.time = false;
  opts.device = d;
  CaseResult r = run_case(c, opts);
  if (r.verdict == Verdict::skip) GTEST_SKIP() << r.message;
  EXPECT_EQ(r.verdict, Verdict::pass) << c.name << "\n" << r.message;
}

// The MPI backend, host buffers.
TEST_P(CollectiveCase, MatchesReferenceOnEveryRank) { check_on(*GetParam(), Device::cpu()); }
// The NCCL backend, device buffers: skips with the reason without a CUDA+NCCL build or a
// GPU per rank (one GPU allows the 1-rank run).
TEST_P(CollectiveCase, NcclMatchesReferenceOnEveryRank) { check_on(*GetParam(), Device::cuda(0)); }

INSTANTIATE_TEST_SUITE_P(All, CollectiveCase, ::testing::ValuesIn(collectives_registry().select("quick", "collectives", "")),
                         [](const auto& info) {
                           std::string n = info.param->name.substr(12);
                           for (char& ch : n) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace tandem
