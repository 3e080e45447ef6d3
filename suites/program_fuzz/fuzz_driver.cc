// check_case and the fuzz loop with its statistics.
#include "suites/program_fuzz/fuzz_driver.h"

#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "engine/core/dot_algorithm_types.h"
#include "engine/core/error.h"
#include "harness/atomic_file.h"
#include "harness/error_outcome.h"
#include "suites/program_fuzz/fuzz_case_json.h"
#include "suites/program_fuzz/fuzz_engine.h"
#include "suites/program_fuzz/fuzz_limits.h"
#include "suites/program_fuzz/fuzz_oracle.h"
#include "suites/program_fuzz/fuzz_shrink.h"
#include "suites/program_fuzz/fuzz_unsupported.h"
#include "suites/program_fuzz/gen_rows.h"

namespace tandem::fuzz {
namespace {
using nlohmann::json;

constexpr uint64_t kPerturbedRuns = 4;

// Equation applications of a program, scan bodies once per step: the roundings its backward does.
int64_t applications(const Program& p) {
  int64_t n = 0;
  for (const Eqn& e : p.eqns) {
    ++n;
    const int64_t times = e.prim->name == "scan" ? std::max<int64_t>(1, e.params.get_int("length", 1)) : 1;
    for (const auto& [key, value] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&value)) n += times * applications(**sub);
  }
  return n;
}

// Whether a dot_general of p (sub-programs too) accumulates in a type with a smaller range than
// its operands' (ResultKinds::narrow_accumulation).
bool narrow_accumulation(const Program& p) {
  for (const Eqn& e : p.eqns) {
    for (const auto& [key, value] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&value); sub && narrow_accumulation(**sub)) return true;
    if (e.prim->name != "dot_general") continue;
    const DType in = e.in[0].type().dtype;
    const std::optional<DotAlgorithm> a = parse_algorithm(e.params.get_string("precision", "DEFAULT"));
    if (a && is_floating(in) && largest_finite(algorithm_info(*a).accumulation) < largest_finite(in)) return true;
  }
  return false;
}

ResultKinds result_kinds(const FuzzCase& c) {
  ResultKinds k;
  for (const auto* ts : {&c.args, &c.cotangents})
    for (const Tensor& t : *ts) {
      if (!is_floating(t.dtype())) continue;
      for (double x : t.to_f64()) {
        if (!std::isfinite(x)) continue;
        k.argument_scale = std::max(k.argument_scale, std::fabs(x));
        k.extreme_arguments |= square_leaves_range(x, t.dtype());
      }
    }
  if (differentiates(c.chain.kind)) k.first_normwise = k.first_cotangent = c.program.out_vars.size();
  // Collectives the mesh reference sums exactly, or arguments near the end of the range
  // (sums that overflow or cancel in the engine's order): every result normwise.
  if ((c.chain.kind == ChainKind::vmap && has_collective(c.program)) || k.extreme_arguments) k.first_normwise = 0;
  k.narrow_accumulation = narrow_accumulation(c.program);
  k.normwise_eqns = applications(c.program);
  k.roundoff = program_roundoff(c.program);
  return k;
}

}  // namespace

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::agree: return "agree";
    case Outcome::disagree: return "disagree";
    case Outcome::engine_refused: return "engine_refused";
    case Outcome::reference_refused: return "reference_refused";
    case Outcome::engine_error: return "engine_error";
    case Outcome::unsupported: return "unsupported";
  }
  return "?";
}

// The engine refusing a program the reference runs is a failure: a broken shape rule or pass
// refuses what it should take. Only what the table says it does not support is not.
bool failed(const CaseResult& r) {
  return r.outcome == Outcome::disagree || r.outcome == Outcome::engine_error || r.outcome == Outcome::engine_refused;
}

// The runs of the error model after the first two (own and one perturbed draw): three more
// draws and the scaled run. Several draws: a result behind a discontinuity (max, a comparison)
// moves only when a draw crosses it, and two draws missed one in 10^5 cases where four did not.
void complete_runs(const FuzzCase& c, CheckedResults& k, ReferenceCache* cache) {
  if (k.runs_complete) return;
  auto reference = [&](RefVariant v, uint64_t seed) { return cache ? cache->results(c, v, seed) : reference_results(c, v, seed); };
  if (cache)
    cache->compute(c, {{RefVariant::perturbed, c.seed + 2}, {RefVariant::perturbed, c.seed + 3},
                       {RefVariant::perturbed, c.seed + 4}, {RefVariant::scaled, c.seed}});
  for (uint64_t i = 2; i <= kPerturbedRuns; ++i) k.runs.push_back(reference(RefVariant::perturbed, c.seed + i));
  k.runs.push_back(reference(RefVariant::scaled, c.seed));
  k.runs_complete = true;
}

std::optional<CaseResult> compute_references(const FuzzCase& c, CheckedResults& k, bool& nonfinite_forward,
                                             ReferenceCache* cache) {
  nonfinite_forward = false;
  try {
    if (cache) cache->compute(c, {{RefVariant::wide, 0}, {RefVariant::own, 0}, {RefVariant::perturbed, c.seed + 1}});
    k.wide = cache ? cache->results(c, RefVariant::wide) : reference_results(c, RefVariant::wide);
    k.runs.push_back(cache ? cache->results(c, RefVariant::own, 0, &nonfinite_forward)
                           : reference_results(c, RefVariant::own, 0, &nonfinite_forward));
    k.runs.push_back(cache ? cache->results(c, RefVariant::perturbed, c.seed + 1) : reference_results(c, RefVariant::perturbed, c.seed + 1));
    k.runs_complete = false;
    if (!cache) complete_runs(c, k, cache);  // with a cache, staged in check_engine (fuzz_driver.h)
  } catch (const std::exception& e) {
    CaseResult r;
    r.outcome = Outcome::reference_refused;
    r.message = e.what();
    return r;
  }
  return std::nullopt;
}

CaseResult check_engine(const FuzzCase& c, Device device, bool nonfinite_forward, CheckedResults& k,
                        ReferenceCache* cache) {
  CaseResult r;
  try {
    EngineRun run = run_engine(c, device);
    r.hoist_rewrites = run.hoist_rewrites;
    k.kinds = result_kinds(c);
    k.kinds.nonfinite_forward = nonfinite_forward;
    r.verdict = compare_results(run.results, k.wide, k.runs, k.kinds);
    if (!r.verdict.agree && !k.runs_complete) {  // the first two runs' tolerance does not suffice: all of them
      try {
        complete_runs(c, k, cache);
      } catch (const std::exception& e) {
        r.outcome = Outcome::reference_refused;
        r.message = e.what();
        return r;
      }
      r.verdict = compare_results(run.results, k.wide, k.runs, k.kinds);
    }
    r.outcome = r.verdict.agree ? Outcome::agree : Outcome::disagree;
    r.message = r.verdict.detail;
    k.engine = std::move(run.results);
  } catch (const Error& e) {
    const bool raised = e.kind() == ErrorKind::internal || e.kind() == ErrorKind::invariant;
    r.outcome = raised ? Outcome::engine_error : Outcome::engine_refused;
    r.error_kind = e.kind();
    r.message = e.what();
    // Decided by the case, not by the message: a combination the engine is known not to take.
    if (r.outcome == Outcome::engine_refused)
      if (std::optional<std::string> why = unsupported_reason(c)) r.outcome = Outcome::unsupported, r.message = *why + ": " + r.message;
  } catch (const std::exception& e) {
    r.outcome = Outcome::engine_error;
    r.error_kind = error_kind_of(e);
    r.message = e.what();
  }
  return r;
}

CaseResult check_case(const FuzzCase& c, Device device, CheckedResults* keep, ReferenceCache* cache) {
  CheckedResults local;
  CheckedResults& k = keep ? *keep : local;
  bool nonfinite_forward = false;
  if (std::optional<CaseResult> refused = compute_references(c, k, nonfinite_forward, cache)) return *refused;
  return check_engine(c, device, nonfinite_forward, k, cache);
}

// The engine's and the wide reference's results of a case, for an outside judge
// (tools/oracles/fuzz_case_vs_jax.py puts JAX's beside them).
nlohmann::json case_with_results(const FuzzCase& c, const std::string& what) {
  json j = case_to_json(c, what);
  j["engine"] = json::array();
  j["reference"] = json::array();
  try {
    for (const Tensor& t : run_engine(c).results) j["engine"].push_back(tensor_to_json(t));
  } catch (const std::exception& e) {
    j["engine"] = std::string("error: ") + e.what();
  }
  try {
    for (const ref::Array& a : reference_results(c, RefVariant::wide))
      j["reference"].push_back(tensor_to_json(Tensor::from_f64(a.data, a.shape, DType::f64)));
    // The own-dtype runs the tolerance came from (fuzz_oracle.h), as check_case makes them.
    std::vector<std::pair<RefVariant, uint64_t>> runs = {{RefVariant::own, 0}};
    for (uint64_t k = 1; k <= kPerturbedRuns; ++k) runs.emplace_back(RefVariant::perturbed, c.seed + k);
    runs.emplace_back(RefVariant::scaled, c.seed);
    for (const auto& [variant, seed] : runs) {
      json one = json::array();
      for (const ref::Array& a : reference_results(c, variant, seed))
        one.push_back(tensor_to_json(Tensor::from_f64(a.data, a.shape, DType::f64)));
      j["reference_runs"].push_back(one);
    }
  } catch (const std::exception& e) {
    j["reference"] = std::string("error: ") + e.what();
  }
  return j;
}

int replay_case(const FuzzCase& c, std::ostream& log) {
  const CaseResult r = check_case(c);
  log << "replay (seed " << c.seed << ", chain " << chain_name(c.chain.kind) << ", " << c.program.eqns.size()
      << " equations): " << outcome_name(r.outcome) << (r.message.empty() ? "" : ": " + r.message) << "\n";
  return failed(r) ? 1 : 0;
}

}  // namespace tandem::fuzz
