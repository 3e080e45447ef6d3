// The reference runs of fuzz_oracle.h shared between the cases of one program and its arguments
// (`tandem check --program`), each computed once: the vjp under every policy has one reference
// (the policy changes the engine's program, never what it must equal); forward and hoist share
// theirs; the dot presets share the wide truth (the widened program drops the precision; the
// four ANY_F8 presets share another) and, where their rounding model is the same
// (fuzz_rounding.h: DEFAULT, HIGHEST, F32_F32_F32, BF16_BF16_F32_X9 and F64_F64_F64 on f32
// operands; HIGH and X3; X6 and TF32_X3; the four ANY_F8), the own-dtype runs too. At B64 T25 H512 an
// LSTM's reference is minutes of f64 work per case: this is most of what makes checking a
// user's program at the user's size take seconds.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "reference/array.h"
#include "suites/program_fuzz/fuzz_case.h"
#include "suites/program_fuzz/fuzz_oracle.h"

namespace tandem::fuzz {

// Text equal for two cases of one program and its arguments exactly when reference_results
// computes the same for them: the variant and perturbation seed, whether the chain
// differentiates, and the program printed as the variant sees it (widen(p) for the wide truth),
// each dot's precision as its rounding model (fuzz_rounding.h). Empty for vmap chains, whose
// examples are the case's own: not shared.
std::string reference_key(const FuzzCase& c, RefVariant variant, uint64_t perturb_seed);

// Keys compare the program's text (engine/ir/printer.h prints literals to 6 digits), so one
// cache serves the cases of one program and its arguments, as ImportedProgram holds it.
class ReferenceCache {
 public:
  ~ReferenceCache();  // drops the runs planned and not started, waits for those running
  // reference_results(c, variant, perturb_seed, nonfinite_forward), computed at the first ask;
  // while another thread computes it, this one computes the plan's next runs, then waits.
  std::vector<ref::Array> results(const FuzzCase& c, RefVariant variant, uint64_t perturb_seed = 0,
                                  bool* nonfinite_forward = nullptr);
  // Runs (variant, perturbation seed) to compute ahead, in plan order (first: before the rest,
  // now), on cores − 1 threads beside the caller's, which results() joins: `tandem check
  // --program` plans its selected cases' first runs and the engine runs meanwhile. Every run is
  // computed exactly as results() alone computes it (its own random draws, nothing shared but the
  // read-only case), so threads change no bit; a run's error is thrown where results() asks for it.
  void plan(const FuzzCase& c, const std::vector<std::pair<RefVariant, uint64_t>>& wanted, bool first = false);
  void compute(const FuzzCase& c, const std::vector<std::pair<RefVariant, uint64_t>>& wanted) { plan(c, wanted, true); }
  size_t computed() { std::lock_guard<std::mutex> lock(mutex_); return runs_.size(); }

 private:
  struct Runs {
    std::vector<ref::Array> results;
    bool nonfinite_forward = false;
    std::exception_ptr error;  // what reference_results threw
  };
  struct Planned { std::string key; FuzzCase c; RefVariant v; uint64_t seed; };
  // reference_results, handed the forward this cache already holds where a vjp's wide or own
  // run walks the same forward as the plain chain's (fuzz_oracle.h); an error kept, not thrown.
  Runs run(const FuzzCase& c, RefVariant v, uint64_t perturb_seed);
  void start();                                        // under lock: threads for the plan, up to cores − 1
  void run_first(std::unique_lock<std::mutex>& lock);  // under lock: the plan's first run computed and kept
  std::map<std::string, Runs> runs_;
  std::mutex mutex_;
  std::condition_variable stored_;
  std::deque<Planned> plan_;
  std::set<std::string> running_;
  std::vector<std::thread> workers_;
  size_t active_ = 0;  // workers computing the plan
};

}  // namespace tandem::fuzz
