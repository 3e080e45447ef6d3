// Cases and the registry: a case is a named, parametrised workload that makes seeded inputs,
// runs on a backend, runs the reference, compares with an ErrorSpec and is timed. Suites
// register their cases; profiles (quick ⊂ nightly) select the grid.
#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/device.h"
#include "harness/oracle_program.h"

namespace tandem {

enum class Verdict { pass, fail, skip, error };
const char* verdict_name(Verdict v);

// A derived metric with its unit and which way is better ("higher", "lower", or "").
struct Metric {
  std::string name;
  double value = 0;
  std::string unit;
  std::string direction;
};

struct CaseResult;

struct RunOptions {
  Device device = Device::cpu();
  bool check = true;        // compare against the reference
  bool time = true;         // collect timing samples
  int warmup = 1;
  int repetitions = 5;
  double min_time_s = 0.0;  // keep repeating until this much time has been measured
  // Multi-rank runs (harness/rank_lockstep.h): called on every path of run_case, on
  // every rank, after the check and before timing, with this rank's verdict so far; it
  // agrees with the other ranks and returns whether to time (false: some rank did not pass).
  std::function<bool(const CaseResult&)> before_timing;
};

struct CaseResult {
  Verdict verdict = Verdict::pass;
  std::string message;               // failure report or skip reason
  nlohmann::json correctness;        // metrics, tolerance, per-output reports
  std::vector<double> samples_s;     // one wall time per repetition
  std::vector<double> cpu_samples_s; // the process CPU time of each repetition
  // The anchor timed beside the body, repetition by repetition (harness/anchor.h): its name,
  // kind ("library call" or "canary") and one wall and one process CPU time per repetition.
  std::string anchor_name, anchor_kind;
  std::vector<double> anchor_samples_s, anchor_cpu_samples_s;  // per anchor call
  int anchor_calls = 1;                                        // anchor calls per sample (the canary's)
  std::vector<Metric> metrics;
  nlohmann::json info = nlohmann::json::object();  // e.g. the algorithm actually run
};

// A case made concrete on one device: inputs generated, program built. `body` is the timed
// work; `check` runs it once more and compares every output with the reference.
struct CaseInstance {
  std::function<void()> body;
  std::function<CaseResult()> check;
  nlohmann::json info = nlohmann::json::object();
  // The raw library call the case stands for (BLAS sgemm for a dot, the GEMMs alone for an
  // LSTM), timed interleaved with `body` so the gate judges body / anchor of the same run: a
  // busier machine slows both and cancels. Unset: the harness's canary (harness/anchor.h).
  std::string anchor_name;
  std::function<void()> anchor;
  // Program cases: the programs, inputs and tandem's CPU results for an outside oracle
  // (harness/oracle_program.h); unset for cases that are not a Program.
  std::function<std::vector<OracleProgram>()> oracle;
};

struct Case {
  std::string suite;
  std::string name;          // carries its parameters: dot/M:64/K:256/N:64/alg:F32_F32_F32
  nlohmann::json params;
  std::set<std::string> profiles;  // see profiles_from()
  double flops = 0;          // per run of body, for GFLOP/s
  // The case runs on every MPI rank together and decides device availability itself, agreed
  // across ranks (the NCCL cases): the harness must not skip it on one rank alone, or a rank
  // without a GPU would walk on while the others wait in the agreement.
  bool agrees_across_ranks = false;
  // Throws tandem::Error(unsupported) when the device cannot run this case: a skip.
  std::function<CaseInstance(Device)> instantiate;
};

class Registry {
 public:
  void add(Case c);
  const std::vector<Case>& cases() const {
    require_filled();
    return cases_;
  }
  // Cases of a profile (quick ⊂ nightly), optionally of one suite and name regex.
  std::vector<const Case*> select(const std::string& profile, const std::string& suite,
                                  const std::string& name_regex) const;

 private:
  void require_filled() const;  // an empty registry is an internal error: nobody filled it
  std::vector<Case> cases_;
};

// Every suite's cases, filled once by register_all_suites() (suites/register_suites.h).
Registry& registry();

// Profiles nest: a case tagged "quick" also runs in nightly (quick: seconds, correctness;
// nightly: adds the perf cases and the long grids).
std::set<std::string> profiles_from(const std::string& narrowest);
bool is_known_profile(const std::string& p);

// A user's regex over names (--filter, --fault): true where it matches anywhere in a name. RE2,
// linear in the name for every pattern: std::regex backtracked for minutes on '(.*.*)*y' over
// the case names. An invalid pattern is bad input naming `option` and `example`.
std::function<bool(const std::string&)> name_matcher(const std::string& pattern, const std::string& option,
                                                      const std::string& example);

}  // namespace tandem
