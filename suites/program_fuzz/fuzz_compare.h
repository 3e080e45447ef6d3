// Engine against reference for a fuzz case, element by element, with a tolerance derived from
// the case's own data (fuzz_oracle.h's three reference runs):
//
//   |engine − wide| ≤ kHeadroom · max_runs |run − wide| + kFinalRoundings · u · |wide|
//                     (+ kNormwiseRoundings · equations · u · max |wide, args| for a
//                        cotangent, any result of a vmap over collectives, and any result of
//                        a case whose arguments reach past the square root of the range)
//
// where the runs are the own-dtype and perturbed reference runs and u is the unit roundoff
// of the result's dtype (0 for integers and bools, which must then match exactly unless a
// run moved them). The first term is how far rounding at this program's dtypes — and a
// different summation order — moves this output at these inputs, with a headroom of 8; the
// second is the engine's own last operation (a float library function is within 2 ulps). A
// NaN or an infinity must be matched by class, unless a reference run itself
// changes class there (the element is unstable, counted and skipped).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "reference/array.h"

namespace tandem::fuzz {

inline constexpr double kHeadroom = 8;
inline constexpr double kFinalRoundings = 4;
// Below the smallest normal number of the result's dtype differences are not counted: the
// engine may flush subnormal results to zero (as XLA's CPU runtime does), the reference never.
// The normwise floor: the reference's tape runs the backward in f64, the engine in the
// input's dtype, rounding at every equation of its backward program; that error is bounded
// normwise, kNormwiseRoundings units of the program's largest per-equation roundoff (or the
// result dtype's, if larger) times the largest finite result or argument (a
// cotangent near 0 can cancel terms that large) per equation of the program, scan bodies
// once per step.
inline constexpr double kNormwiseRoundings = 4;

// Which results get the normwise floor, and over how many equations. Cotangents do; so do
// all results of a vmap whose collectives the mesh reference sums exactly (it has no
// perturbed runs: a sum over members that cancels is only bounded normwise).
struct ResultKinds {
  size_t first_normwise = SIZE_MAX;  // results from here on get the floor (SIZE_MAX: none)
  int64_t normwise_eqns = 0;
  double argument_scale = 0;         // the largest finite argument magnitude
  double roundoff = 0;               // the program's largest relative error per equation (fuzz_oracle.h)
  // An argument beyond the square root of its dtype's largest finite value, or a nonzero one
  // below the square root of its smallest normal: a product (or a reciprocal) of such values
  // overflows in the engine's dtype where the reference's f64 — and the tape's f64 backward —
  // stays finite, so a finite/non-finite mismatch is counted unstable, not failed.
  bool extreme_arguments = false;
  // Cotangents (from first_cotangent on) of a forward that made a NaN, an infinity or a value
  // whose square leaves its dtype (fuzz_limits.h): a finite/non-finite mismatch there is
  // counted unstable (fuzz_oracle.h, nonfinite_forward;
  // tools/oracles/fuzz_case_vs_jax.py judges such cases against JAX).
  size_t first_cotangent = SIZE_MAX;
  bool nonfinite_forward = false;
  // A dot_general whose DotAlgorithm accumulates in a narrower type than its operands (an f64
  // dot under a preset accumulating in f32): past that type's range the engine overflows, as
  // XLA does, where the f64 reference does not, so a finite/non-finite mismatch is unstable.
  bool narrow_accumulation = false;
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
