// The fuzz loop: generate case i from (seed, i), run the engine and the reference, compare;
// a disagreement is shrunk and written as a replayable case. The summary (per chain, per
// primitive, refusals, the tolerance margin) goes to OUT/fuzz_summary.json and the log.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "suites/program_fuzz/fuzz_case.h"
#include "engine/core/device.h"
#include "suites/program_fuzz/fuzz_compare.h"

namespace tandem::fuzz {

struct FuzzRunOptions {
  uint64_t seed = 1;
  int64_t programs = 1000;  // stop after this many cases...
  double seconds = 0;       // ... or after this long (0: no time limit)
  FuzzOptions fuzz;
  std::string out_dir;      // where cases and the summary go ("" : nowhere)
  int max_failures = 3;     // stop after this many disagreements
  int shrink_budget = 300;
  // Every Nth agreeing case is written too (sample-SEED.json, with the engine's and the
  // reference's results), for an outside judge: tools/oracles/fuzz_case_vs_jax.py. 0: none.
  int64_t sample_every = 0;
};

enum class Outcome { agree, disagree, engine_refused, reference_refused, engine_error };
const char* outcome_name(Outcome o);

struct CaseResult {
  Outcome outcome = Outcome::agree;
  Verdict verdict;
  std::string message;  // a refusal's or an error's text
  int hoist_rewrites = 0;
};

// What check_case computed, for a caller that reports more than the verdict (`tandem check
// --program`, program_check.h): the reference's runs, the tolerance's inputs, the engine's results.
struct CheckedResults {
  std::vector<ref::Array> wide;                 // the f64 truth
  std::vector<std::vector<ref::Array>> runs;    // own, perturbed and scaled (fuzz_oracle.h)
  ResultKinds kinds;
  std::vector<Tensor> engine;
};

// One case, engine (on `device`) against reference. Never throws for what the case does.
// `keep` (optional) receives what was computed.
CaseResult check_case(const FuzzCase& c, Device device = Device::cpu(), CheckedResults* keep = nullptr);
bool failed(const CaseResult& r);

// Exit code: 0 every case agreed (refusals counted, not failures), 1 a disagreement or an
// engine error (cases written), 3 no case was checked at all.
int run_fuzz(const FuzzRunOptions& options, std::ostream& log);

// `--replay FILE`: the case's check again (exit 0 agree, 1 disagree).
int replay_case(const FuzzCase& c, std::ostream& log);

// The case as JSON with the engine's and the wide reference's results beside it, for an
// outside judge (tools/oracles/fuzz_case_vs_jax.py puts JAX's next to them).
nlohmann::json case_with_results(const FuzzCase& c, const std::string& what);

}  // namespace tandem::fuzz
