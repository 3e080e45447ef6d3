// Every collectives case (op × dtype × group layout) against the reference model, under
// mpirun at 1, 2, 3 and 4 ranks; a layout that does not fit the world size skips.
#include <gtest/gtest.h>

#include "suites/common/harness.h"
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

TEST_P(CollectiveCase, MatchesReferenceOnEveryRank) {
  RunOptions opts;
  opts.time = false;
  CaseResult r = run_case(*GetParam(), opts);
  if (r.verdict == Verdict::skip) GTEST_SKIP() << r.message;
  EXPECT_EQ(r.verdict, Verdict::pass) << GetParam()->name << "\n" << r.message;
}

INSTANTIATE_TEST_SUITE_P(All, CollectiveCase, ::testing::ValuesIn(collectives_registry().select("quick", "collectives", "")),
                         [](const auto& info) {
                           std::string n = info.param->name.substr(12);
                           for (char& ch : n) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace tandem
