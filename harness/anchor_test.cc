// The anchor timed beside each repetition (harness/anchor.h): a case's own library call, else
// the canary on the CPU, none in a multi-rank run; one anchor sample per repetition, in order
// (body and anchor interleaved), and the record carries them with the ratio's median.
#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
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

// A long warm-up is the body's: the anchor warms up with its last two iterations only (a case
// held busy by -w 200000 ran 200,000 canaries beside it, minutes on a busy runner).
TEST(Anchor, AWarmUpRunsTheAnchorWithItsLastTwoIterationsOnly) {
  std::string trace;
  RunOptions opts;
  opts.warmup = 5, opts.repetitions = 2;
  run_case(counted_case(&trace, true), opts);
  EXPECT_EQ(trace, "bbb" "baba" "baab");  // 3 bodies alone, 2 beside the anchor; then the 2 repetitions
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

TEST(Anchor, CanaryCallsTrackTheBodysTime) {
  EXPECT_EQ(canary_calls(0.010, 0.001), 10);
  EXPECT_EQ(canary_calls(0.0104, 0.001), 10);
  EXPECT_EQ(canary_calls(0.0001, 0.001), 1);  // a body shorter than one call: one call
  EXPECT_EQ(canary_calls(10.0, 0.001), kMaxCanaryCalls);
  EXPECT_EQ(canary_calls(0.01, 0.0), 1);
}

// Busy for `ms` of this process's CPU time (a sleep would leave it at zero; a spin for wall time
// would cost less CPU the busier the machine, and the canary's call count, taken from CPU
// times, would then depend on the load: not a test that holds on a loaded runner).
double process_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}
void spin_ms(double ms) {
  const double end = process_cpu_ms() + ms;
  while (process_cpu_ms() < end) {
  }
}

TEST(Anchor, ScaledCanaryRunsSeveralCallsPerSampleRecordedPerCall) {
  std::string trace;
  RunOptions opts;
  opts.warmup = 1, opts.repetitions = 3, opts.min_time_s = 0;
  Anchor canary{"canary/test", "canary", [&] { trace += "a", spin_ms(0.5); }, true};
  AnchoredTiming t = time_with_anchor([&] { trace += "b", spin_ms(4); }, canary, opts);
  // 8 by the CPU clock (4 ms over 0.5 ms), whatever the machine's load; at least 4 (2× headroom):
  // the timer reads around each call count too, and where they are costly (6 under qemu-aarch64,
  // whose process CPU clock is emulated) the count drops, yet the canary still scales.
  EXPECT_GE(t.calls, 4);
  EXPECT_EQ(trace, "ba" + std::string("b") + std::string(t.calls, 'a') + std::string(t.calls, 'a') + "b" + "b" +
                       std::string(t.calls, 'a'));  // interleaved as before, one sample = `calls` calls
  ASSERT_EQ(t.anchor_s.size(), 3u);
  for (size_t i = 0; i < 3; ++i)  // CPU times: wall ones stretch with the load, differently per sample
    EXPECT_LT(t.anchor_cpu_s[i], t.cpu_s[i] / 2) << "per call, not per sample";
  trace.clear();
  Anchor own{"raw_call", "library call", [&] { trace += "a", spin_ms(0.5); }};  // a library call: one per sample
  EXPECT_EQ(time_with_anchor([&] { trace += "b", spin_ms(4); }, own, opts).calls, 1);
  EXPECT_EQ(trace, "babaabba");
}

// A body shorter than one canary call shares a canary sample with its group: the canary costs
// about the body's time, and each repetition still has its anchor sample, in order.
TEST(Anchor, ScaledCanaryBesideAShortBodyIsSampledOncePerGroup) {
  std::string trace;
  RunOptions opts;
  opts.warmup = 1, opts.repetitions = 24, opts.min_time_s = 0;
  Anchor canary{"canary/test", "canary", [&] { trace += "a", spin_ms(4); }, true};
  AnchoredTiming t = time_with_anchor([&] { trace += "b", spin_ms(0.5); }, canary, opts);
  EXPECT_EQ(t.calls, 1);
  EXPECT_GE(t.every, 4);  // 8 by the CPU clock, 2x headroom as above
  const std::string timed = trace.substr(2);  // after the warm-up's "ba"
  EXPECT_EQ(std::count(timed.begin(), timed.end(), 'a'), (24 + t.every - 1) / t.every) << timed;
  EXPECT_LE(std::count(timed.begin(), timed.end(), 'a'), 6) << "one canary call per repetition";
  EXPECT_EQ(timed.substr(0, t.every + 1), std::string(t.every, 'b').insert(1, "a"));  // the first group: its anchor after its first body
  ASSERT_EQ(t.anchor_s.size(), 24u);
  ASSERT_EQ(t.anchor_cpu_s.size(), 24u);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(t.anchor_s[i], t.anchor_s[i - i % t.every]) << "repetition " << i;
  opts.warmup = 0;  // -w 0: the first repetition sizes the canary for the rest
  trace.clear();
  t = time_with_anchor([&] { trace += "b", spin_ms(0.5); }, canary, opts);
  EXPECT_GE(t.every, 4);
  EXPECT_LE(std::count(trace.begin(), trace.end(), 'a'), 7) << trace;
  ASSERT_EQ(t.anchor_s.size(), 24u);
  EXPECT_EQ(canary_every(0.0001, 0.001), 10);
  EXPECT_EQ(canary_every(0.01, 0.001), 1);  // a body longer than one call: a sample each (calls scale instead)
  EXPECT_EQ(canary_every(1e-9, 0.001), kMaxCanaryEvery);
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
