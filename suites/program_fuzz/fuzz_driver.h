// The fuzz loop: generate case i from (seed, i), run the engine and the reference, compare;
// a disagreement is shrunk and written as a replayable case. The summary (per chain, per
// primitive, refusals, the tolerance margin) goes to OUT/fuzz_summary.json and the log.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "suites/program_fuzz/fuzz_case.h"
#include "engine/core/device.h"
#include "engine/core/error.h"
#include "suites/program_fuzz/fuzz_compare.h"
#include "suites/program_fuzz/fuzz_reference_cache.h"

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

// engine_refused: the engine refused (a bad-input error) a program the reference runs: a
// failure. unsupported: it refused a combination fuzz_unsupported.h's table names (counted).
enum class Outcome { agree, disagree, engine_refused, reference_refused, engine_error, unsupported };
const char* outcome_name(Outcome o);

struct CaseResult {
  Outcome outcome = Outcome::agree;
  Verdict verdict;
  std::string message;  // a refusal's or an error's text
  ErrorKind error_kind = ErrorKind::internal;  // engine_error's (harness/error_outcome.h decides its verdict)
  int hoist_rewrites = 0;
};

// What check_case computed, for a caller that reports more than the verdict (`tandem check
// --program`, program_check.h): the reference's runs, the tolerance's inputs, the engine's results.
struct CheckedResults {
  std::vector<ref::Array> wide;                 // the f64 truth
  std::vector<std::vector<ref::Array>> runs;    // own, perturbed and scaled (fuzz_oracle.h)
  bool runs_complete = true;                    // false: only own and the first perturbed draw
  ResultKinds kinds;
  std::vector<Tensor> engine;
};

// One case, engine (on `device`) against reference. Never throws for what the case does.
// `keep` (optional) receives what was computed; `cache` (optional) holds reference runs shared
// with other cases of the same program and arguments (fuzz_reference_cache.h), and with it the
// error model's runs come in two stages: own and one perturbed draw first, the other draws and
// the scaled run only when the engine does not agree within the first two's tolerance. The
// verdict is the one all six runs give: the tolerance is 8 · max over the runs (and an element
// a run moves to another class is skipped), so it only grows as runs are added, and agreement
// within the first two's is agreement within all six's. The error over tolerance a passing
// case reports is then measured against the smaller tolerance: an upper bound of the full one's.
CaseResult check_case(const FuzzCase& c, Device device = Device::cpu(), CheckedResults* keep = nullptr,
                      ReferenceCache* cache = nullptr);
// Adds the runs the first stage left out (nothing when k has them all).
void complete_runs(const FuzzCase& c, CheckedResults& k, ReferenceCache* cache);
bool failed(const CaseResult& r);
// check_case's two halves, for one case checked under several engine faults with its
// references computed once (fuzz_each_fault.h): the reference's runs into k (a refusal's
// result when the reference refuses the case), then the engine's run judged against them.
// With a cache, the references are staged as check_case stages them (complete_runs).
std::optional<CaseResult> compute_references(const FuzzCase& c, CheckedResults& k, bool& nonfinite_forward,
                                             ReferenceCache* cache = nullptr);
CaseResult check_engine(const FuzzCase& c, Device device, bool nonfinite_forward, CheckedResults& k,
                        ReferenceCache* cache = nullptr);

// One case of a run (generated from (seed, index), checked, shrunk and written when it fails)
// as a record: its outcome, what the summary counts, the failure and its log lines. What a
// `tandem fuzz` case worker sends its parent (runners/cli/fuzz_command.cc isolates crashes).
nlohmann::json fuzz_one(const FuzzRunOptions& options, int64_t index);
// The record of a case whose process died in it (`why`): a failure naming the case's seed.
nlohmann::json crashed_case(const FuzzRunOptions& options, int64_t index, const std::string& why);

// Counts the records of a run and prints and writes its summary.
class FuzzTally {
 public:
  explicit FuzzTally(const FuzzRunOptions& o);
  ~FuzzTally();
  void add(const nlohmann::json& record, std::ostream& log);
  bool should_stop() const;  // --max-failures reached, or --seconds spent
  // Exit code: 0 every case agreed (reference refusals and unsupported combinations counted),
  // 1 a disagreement, an engine refusal, error or crash (cases written), 3 no case checked.
  int finish(std::ostream& log);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Every case in this process (a crash ends the run): fuzz_one for each index into a tally.
int run_fuzz(const FuzzRunOptions& options, std::ostream& log);

// `--replay FILE`: the case's check again (exit 0 agree, 1 disagree).
int replay_case(const FuzzCase& c, std::ostream& log);

// The case as JSON with the engine's and the wide reference's results beside it, for an
// outside judge (tools/oracles/fuzz_case_vs_jax.py puts JAX's next to them).
nlohmann::json case_with_results(const FuzzCase& c, const std::string& what);

}  // namespace tandem::fuzz
