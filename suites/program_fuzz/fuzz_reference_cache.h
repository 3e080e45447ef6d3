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
#include <cstdint>
#include <map>
#include <string>
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
  // reference_results(c, variant, perturb_seed, nonfinite_forward), computed at the first ask.
  std::vector<ref::Array> results(const FuzzCase& c, RefVariant variant, uint64_t perturb_seed = 0,
                                  bool* nonfinite_forward = nullptr);
  // The runs of `wanted` (variant, perturbation seed) not computed yet, side by side: at most
  // a thread per core, every run computed exactly as results() computes it (its own random draws,
  // nothing shared but the read-only case), so threading changes no bit; a run that throws
  // makes this throw the first such error in `wanted`'s order, as computing them in turn would.
  void compute(const FuzzCase& c, const std::vector<std::pair<RefVariant, uint64_t>>& wanted);
  size_t computed() const { return runs_.size(); }

 private:
  struct Runs {
    std::vector<ref::Array> results;
    bool nonfinite_forward = false;
  };
  // reference_results, handed the forward this cache already holds where a vjp's wide or own
  // run walks the same forward as the plain chain's (fuzz_oracle.h): read only, so safe from
  // compute's threads.
  Runs run(const FuzzCase& c, RefVariant v, uint64_t perturb_seed) const;
  std::map<std::string, Runs> runs_;
};

}  // namespace tandem::fuzz
