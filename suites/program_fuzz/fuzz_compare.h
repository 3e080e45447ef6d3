// Engine against reference for a fuzz case, element by element, with a tolerance derived from
// the case's own data (fuzz_oracle.h's three reference runs):
//
//   |engine − wide| ≤ kHeadroom · max_runs |run − wide| + kFinalRoundings · u · |wide|
//                     (+ kBackwardRoundings · equations · u · max |wide| for a cotangent)
//
// where the runs are the own-dtype and perturbed reference runs and u is the unit roundoff
// of the result's dtype (0 for integers and bools, which must then match exactly unless a
// run moved them). The first term is how far rounding at this program's dtypes — and a
// different summation order — moves this output at these inputs, with a headroom of 8; the
// second is the engine's own final rounding (one for the result, one for a double rounding
// through f32). A NaN or an infinity must be matched by class, unless a reference run itself
// changes class there (the element is unstable, counted and skipped).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "reference/array.h"

namespace tandem::fuzz {

inline constexpr double kHeadroom = 8;
inline constexpr double kFinalRoundings = 2;
// Cotangents: the reference's tape runs the backward in f64, the engine in the input's
// dtype, rounding at every equation of its backward program; that error is bounded
// normwise, kBackwardRoundings units of roundoff of the largest finite result (any output or
// cotangent: a cotangent near 0 can cancel terms that large) per equation of the program,
// scan bodies once per step.
inline constexpr double kBackwardRoundings = 4;

// Which results are cotangents, and how many equations the backward that made them rounds at.
struct ResultKinds {
  size_t first_cotangent = SIZE_MAX;  // results from here on are cotangents (SIZE_MAX: none)
  int64_t backward_eqns = 0;
  // An argument beyond the square root of its dtype's largest finite value: a product of two
  // such overflows in the engine's dtype where the reference's f64 stays finite (and the
  // tape's backward is f64), so a finite/non-finite mismatch is counted unstable, not failed.
  bool huge_arguments = false;
};

struct Verdict {
  bool agree = true;
  std::string detail;     // the first disagreement: which result, element, values, tolerance
  size_t result = 0;      // index of the first disagreeing result
  double worst = 0;       // max |engine − wide| / tolerance over the finite elements checked
  int64_t checked = 0;    // elements compared
  int64_t unstable = 0;   // elements skipped because a reference run changed class there
};

Verdict compare_results(const std::vector<Tensor>& engine, const std::vector<ref::Array>& wide,
                        const std::vector<std::vector<ref::Array>>& runs, const ResultKinds& kinds = {});

}  // namespace tandem::fuzz
