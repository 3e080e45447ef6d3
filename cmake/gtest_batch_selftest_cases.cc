// Cases with every outcome a batch must answer for (cmake/gtest_batch_run_test.py runs them
// through cmake/gtest_batch_run.py): a pass, a skip with a reason, a failure, and a case that
// kills its process, so the runner is seen naming each one and going on past the crash.
// Not a ctest test of its own: two of its cases fail on purpose.
#include <gtest/gtest.h>

#include <cstdlib>

TEST(Ok, Passes) { EXPECT_EQ(2 + 2, 4); }

TEST(Ok, Skips) { GTEST_SKIP() << "no widget on this machine"; }

TEST(Ok, AfterTheCrash) { SUCCEED(); }

TEST(Bad, Fails) { EXPECT_EQ(1, 2) << "the planted failure"; }

TEST(Bad, Aborts) { std::abort(); }
