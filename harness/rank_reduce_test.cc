// The agreement of a case's outcome over ranks and its timing reduction (rank_reduce.h) on
// made-up outcomes: the verdict of the worst rank, naming it; per-iteration max over ranks;
// each rank's own statistics kept and never above the reduced ones.
#include <gtest/gtest.h>

#include "harness/rank_reduce.h"
#include "harness/timing.h"

namespace tandem {
namespace {

RankOutcome outcome(int rank, std::vector<double> samples, Verdict v = Verdict::pass, std::string msg = "") {
  RankOutcome o;
  o.rank = rank;
  o.host = "h" + std::to_string(rank);
  o.verdict = v;
  o.message = std::move(msg);
  o.correctness = {{"rank", rank}};
  o.samples_s = samples;
  o.cpu_samples_s = samples;
  return o;
}

double metric(const CaseResult& r, const std::string& name) {
  for (const Metric& m : r.metrics)
    if (m.name == name) return m.value;
  return -1;
}

TEST(RankReduce, PerIterationMaxOverRanksAndEachRanksOwnStatistics) {
  // Rank 1 is slow on iteration 0, rank 2 on iteration 2: neither rank's max is every
  // iteration's max, so a reduction of per-rank summaries would differ.
  std::vector<RankOutcome> per = {outcome(0, {1.0, 1.0, 1.0, 1.0}), outcome(1, {3.0, 1.0, 1.5, 1.0}),
                                  outcome(2, {1.0, 2.0, 4.0, 1.0})};
  nlohmann::json ranks;
  CaseResult r = agree_outcomes(per, 2e9, &ranks);
  EXPECT_EQ(r.verdict, Verdict::pass);
  EXPECT_EQ(r.samples_s, (std::vector<double>{3.0, 2.0, 4.0, 1.0}));
  EXPECT_EQ(r.cpu_samples_s, r.samples_s);
  EXPECT_DOUBLE_EQ(metric(r, "time_median"), 2.5);
  EXPECT_DOUBLE_EQ(metric(r, "gflops"), 2e9 / 2.5 * 1e-9);
  EXPECT_DOUBLE_EQ(metric(r, "gflops_all_ranks"), 3 * 2e9 / 2.5 * 1e-9);
  EXPECT_EQ(ranks["ranks"], 3);
  EXPECT_EQ(ranks["iterations_reduced"], 4);
  EXPECT_EQ(ranks["slowest_rank"], 2);  // medians 1.0, 1.25, 1.5
  ASSERT_EQ(ranks["per_rank"].size(), 3u);
  EXPECT_DOUBLE_EQ(ranks["per_rank"][1]["median"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(ranks["per_rank"][2]["min"].get<double>(), 1.0);
  for (const auto& p : ranks["per_rank"]) EXPECT_LE(p["median"].get<double>(), metric(r, "time_median"));
}

TEST(RankReduce, FewestIterationsOfAnyRankAreReduced) {
  // --min-time lets ranks time different counts: only iterations every rank has are reduced.
  nlohmann::json ranks;
  CaseResult r = agree_outcomes({outcome(0, {1.0, 1.0, 5.0}), outcome(1, {2.0, 2.0})}, 0, &ranks);
  EXPECT_EQ(r.samples_s, (std::vector<double>{2.0, 2.0}));
  EXPECT_EQ(ranks["iterations_reduced"], 2);
  EXPECT_EQ(ranks["per_rank"][0]["repetitions"], 3);
  EXPECT_DOUBLE_EQ(ranks["per_rank"][0]["max"].get<double>(), 1.0);  // over the reduced iterations
  EXPECT_EQ(metric(r, "gflops"), -1);  // no FLOP count, no rate
}

TEST(RankReduce, AFailureOnOneRankFailsTheCaseNamingTheRank) {
  nlohmann::json ranks;
  CaseResult r = agree_outcomes({outcome(0, {}), outcome(1, {}, Verdict::fail, "out: 3 of 16 elements off"),
                                 outcome(2, {}, Verdict::error, "bad alloc")},
                                1e9, &ranks);
  EXPECT_EQ(r.verdict, Verdict::fail);  // fail outranks error
  EXPECT_EQ(r.message, "failed on rank 1 of 3 (host h1): out: 3 of 16 elements off");
  EXPECT_EQ(r.correctness["rank"], 1);  // the failing rank's report, not rank 0's
  EXPECT_TRUE(r.samples_s.empty());
  EXPECT_TRUE(r.metrics.empty());
  EXPECT_EQ(ranks["per_rank"][1]["verdict"], "fail");
  EXPECT_FALSE(ranks.contains("slowest_rank"));
  EXPECT_FALSE(ranks.contains("injected_faults"));
}

TEST(RankReduce, AFaultInjectedOnOneRankIsNamed) {
  RankOutcome faulty = outcome(1, {1.0});
  faulty.injected_fault = "lstm_gates_f_g_swapped";
  nlohmann::json ranks;
  agree_outcomes({outcome(0, {1.0}), faulty}, 0, &ranks);
  EXPECT_EQ(ranks["injected_faults"], (nlohmann::json{{"1", "lstm_gates_f_g_swapped"}}));
  EXPECT_EQ(ranks["per_rank"][1]["injected_fault"], "lstm_gates_f_g_swapped");
  EXPECT_FALSE(ranks["per_rank"][0].contains("injected_fault"));
}

TEST(RankReduce, VerdictOrderAndEveryRankNamed) {
  EXPECT_EQ(agreed_verdict({Verdict::pass, Verdict::skip}), Verdict::skip);
  EXPECT_EQ(agreed_verdict({Verdict::skip, Verdict::error}), Verdict::error);
  EXPECT_EQ(agreed_verdict({Verdict::pass, Verdict::pass}), Verdict::pass);
  CaseResult r = agree_outcomes({outcome(0, {}, Verdict::error, "a"), outcome(1, {}, Verdict::error, "b")}, 0, nullptr);
  EXPECT_EQ(r.message, "error on rank 0 of 2 (host h0): a\nerror on rank 1 of 2 (host h1): b");
}

TEST(RankReduce, OneRankWithoutSamplesMeansNoReducedTiming) {
  // A rank that passed but timed nothing (a bug, or a check-only run): nothing is reduced,
  // rather than a max over the ranks that happen to have samples.
  nlohmann::json ranks;
  CaseResult r = agree_outcomes({outcome(0, {1.0}), outcome(1, {})}, 1e9, &ranks);
  EXPECT_EQ(r.verdict, Verdict::pass);
  EXPECT_TRUE(r.samples_s.empty());
  EXPECT_EQ(ranks["iterations_reduced"], 0);
}

TEST(RankReduce, OutcomesRoundTripThroughJsonExactly) {
  RankOutcome o = outcome(3, {0.1 + 0.2, 1e-7 / 3}, Verdict::skip, "no GPU");
  o.injected_fault = "dot_x3_single_pass";
  RankOutcome back = outcome_from_json(nlohmann::json::parse(outcome_to_json(o).dump()));
  EXPECT_EQ(back.rank, 3);
  EXPECT_EQ(back.host, "h3");
  EXPECT_EQ(back.verdict, Verdict::skip);
  EXPECT_EQ(back.message, "no GPU");
  EXPECT_EQ(back.injected_fault, "dot_x3_single_pass");
  EXPECT_EQ(back.samples_s, o.samples_s);  // bit for bit: the reduction compares them
}

}  // namespace
}  // namespace tandem
