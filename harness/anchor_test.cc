// The anchor timed beside each repetition (harness/anchor.h): a case's own library call, else
// the canary on the CPU, none in a multi-rank run; one anchor sample per repetition, in order
// (body and anchor interleaved), and the record carries them with the ratio's median.
#include <gtest/gtest.h>

#include <string>

#include "harness/anchor.h"
#include "harness/harness.h"
#include "harness/records.h"

namespace tandem {
namespace {

Case counted_case(std::string* trace, bool own_anchor) {
  Case c;
  c.suite = "dot";
  c.name = "dot/perf/anchor_test";
  c.instantiate = [trace, own_anchor](Device) {
    CaseInstance inst;
    inst.check = [] { return CaseResult{}; };
    inst.body = [trace] { *trace += "b"; };
    if (own_anchor) inst.anchor_name = "raw_call", inst.anchor = [trace] { *trace += "a"; };
    return inst;
  };
  return c;
}

TEST(Anchor, OwnCallIsTimedInterleavedWithTheBody) {
  std::string trace;
  RunOptions opts;
  opts.warmup = 1, opts.repetitions = 4;
  CaseResult r = run_case(counted_case(&trace, true), opts);
  EXPECT_EQ(trace, "babaabbaab");  // warm-up, then each repetition beside one anchor run, order alternating
  EXPECT_EQ(r.anchor_name, "raw_call");
  EXPECT_EQ(r.anchor_kind, "library call");
  ASSERT_EQ(r.anchor_samples_s.size(), r.samples_s.size());
  ASSERT_EQ(r.anchor_cpu_samples_s.size(), r.samples_s.size());
  nlohmann::json j = make_record(counted_case(&trace, true), "cpu", "cpu", r);
  ASSERT_TRUE(j.contains("anchor"));
  EXPECT_EQ(j["anchor"]["name"], "raw_call");
  EXPECT_EQ(j["anchor"]["samples"].size(), 4u);
  EXPECT_EQ(j["anchor"]["cpu_samples"].size(), 4u);
  EXPECT_GT(j["anchor"]["ratio_median"].get<double>(), 0.0);
}

TEST(Anchor, CanaryWhenTheCaseHasNoCall) {
  std::string trace;
  RunOptions opts;
  opts.repetitions = 3;
  CaseResult r = run_case(counted_case(&trace, false), opts);
  EXPECT_EQ(r.anchor_kind, "canary");
  EXPECT_EQ(r.anchor_name.rfind("canary/", 0), 0u);
  EXPECT_EQ(r.anchor_samples_s.size(), 3u);
  for (double s : r.anchor_samples_s) EXPECT_GT(s, 0.0);
}

TEST(Anchor, NoneInAMultiRankRun) {
  std::string trace;
  RunOptions opts;
  opts.before_timing = [](const CaseResult&) { return true; };
  CaseResult r = run_case(counted_case(&trace, true), opts);
  EXPECT_TRUE(r.anchor_samples_s.empty());
  EXPECT_FALSE(make_record(counted_case(&trace, true), "cpu", "cpu", r).contains("anchor"));
}

}  // namespace
}  // namespace tandem
