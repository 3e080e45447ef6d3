// The agreement of a case's outcome over ranks and the reduction of its timing (see
// rank_reduce.h).
#include "harness/rank_reduce.h"

#include <algorithm>

#include "engine/core/error.h"
#include "harness/timing.h"

namespace tandem {
namespace {

Verdict verdict_from_name(const std::string& s) {
  for (Verdict v : {Verdict::pass, Verdict::fail, Verdict::skip, Verdict::error})
    if (s == verdict_name(v)) return v;
  throw Error(ErrorKind::internal, "a rank sent an unknown verdict '" + s + "'");
}

const char* verdict_phrase(Verdict v) {
  switch (v) {
    case Verdict::fail: return "failed";
    case Verdict::error: return "error";
    case Verdict::skip: return "skipped";
    default: return "passed";
  }
}

}  // namespace

nlohmann::json outcome_to_json(const RankOutcome& o) {
  return {{"rank", o.rank},       {"host", o.host},           {"verdict", verdict_name(o.verdict)},
          {"message", o.message}, {"correctness", o.correctness}, {"samples_s", o.samples_s},
          {"cpu_samples_s", o.cpu_samples_s}, {"injected_fault", o.injected_fault}};
}

RankOutcome outcome_from_json(const nlohmann::json& j) {
  RankOutcome o;
  o.rank = j.at("rank").get<int>();
  o.host = j.at("host").get<std::string>();
  o.verdict = verdict_from_name(j.at("verdict").get<std::string>());
  o.message = j.at("message").get<std::string>();
  o.correctness = j.at("correctness");
  o.samples_s = j.at("samples_s").get<std::vector<double>>();
  o.cpu_samples_s = j.at("cpu_samples_s").get<std::vector<double>>();
  o.injected_fault = j.at("injected_fault").get<std::string>();
  return o;
}

Verdict agreed_verdict(const std::vector<Verdict>& per_rank) {
  auto any = [&](Verdict v) { return std::find(per_rank.begin(), per_rank.end(), v) != per_rank.end(); };
  for (Verdict v : {Verdict::fail, Verdict::error, Verdict::skip})
    if (any(v)) return v;
  return Verdict::pass;
}

CaseResult agree_outcomes(const std::vector<RankOutcome>& per_rank, double flops, nlohmann::json* ranks_json) {
  if (per_rank.empty()) throw Error(ErrorKind::internal, "agree_outcomes: no rank's outcome");
  const int n_ranks = int(per_rank.size());
  std::vector<Verdict> verdicts;
  for (const RankOutcome& o : per_rank) verdicts.push_back(o.verdict);
  CaseResult r;
  r.verdict = agreed_verdict(verdicts);
  r.correctness = per_rank[0].correctness;
  if (r.verdict != Verdict::pass) {
    bool first = true;
    for (const RankOutcome& o : per_rank) {
      if (o.verdict != r.verdict) continue;
      if (first) r.correctness = o.correctness;
      r.message += cat(first ? "" : "\n", verdict_phrase(o.verdict), " on rank ", o.rank, " of ", n_ranks,
                       " (host ", o.host, "): ", o.message);
      first = false;
    }
  }
  // Iterations every rank timed: the reduction needs the same iteration from each rank.
  size_t n = 0;
  bool timed = r.verdict == Verdict::pass;
  for (const RankOutcome& o : per_rank) {
    if (o.samples_s.empty()) timed = false;
    n = n == 0 ? o.samples_s.size() : std::min(n, o.samples_s.size());
  }
  nlohmann::json per = nlohmann::json::array();
  int slowest = -1;
  double slowest_median = -1;
  if (timed) {
    bool cpu = true;
    for (const RankOutcome& o : per_rank) cpu = cpu && o.cpu_samples_s.size() >= n;
    r.samples_s.assign(n, 0.0);
    if (cpu) r.cpu_samples_s.assign(n, 0.0);
    for (const RankOutcome& o : per_rank) {
      const std::vector<double> used(o.samples_s.begin(), o.samples_s.begin() + long(n));
      for (size_t i = 0; i < n; ++i) {
        r.samples_s[i] = std::max(r.samples_s[i], used[i]);
        if (cpu) r.cpu_samples_s[i] = std::max(r.cpu_samples_s[i], o.cpu_samples_s[i]);
      }
      const TimingStats t = summarize(used);
      if (t.median > slowest_median) slowest_median = t.median, slowest = o.rank;
      per.push_back({{"rank", o.rank}, {"host", o.host}, {"verdict", verdict_name(o.verdict)},
                     {"repetitions", o.samples_s.size()}, {"min", t.min}, {"median", t.median}, {"max", t.max}});
    }
    const TimingStats t = summarize(r.samples_s);
    if (flops > 0 && t.median > 0) {
      r.metrics.push_back({"gflops", flops / t.median * 1e-9, "GFLOP/s", "higher"});
      r.metrics.push_back({"gflops_all_ranks", n_ranks * flops / t.median * 1e-9, "GFLOP/s", "higher"});
    }
    r.metrics.push_back({"time_median", t.median, "s", "lower"});
  } else {
    for (const RankOutcome& o : per_rank)
      per.push_back({{"rank", o.rank}, {"host", o.host}, {"verdict", verdict_name(o.verdict)}});
  }
  if (ranks_json) {
    nlohmann::json faults = nlohmann::json::object();
    for (size_t i = 0; i < per_rank.size(); ++i)
      if (!per_rank[i].injected_fault.empty()) {
        per[i]["injected_fault"] = per_rank[i].injected_fault;
        faults[std::to_string(per_rank[i].rank)] = per_rank[i].injected_fault;
      }
    *ranks_json = {{"ranks", n_ranks}, {"time_reduce", "max over ranks per iteration"},
                   {"iterations_reduced", timed ? n : 0}, {"per_rank", per}};
    if (slowest >= 0) (*ranks_json)["slowest_rank"] = slowest;
    if (!faults.empty()) (*ranks_json)["injected_faults"] = faults;  // an experiment, not a verdict
  }
  return r;
}

}  // namespace tandem
