// The error class of each DotAlgorithm: how precisely it represents its inputs and how it
// accumulates. The worst-case tolerance for one output element is
//   (2·u_in + K·u_acc) · Σ_k |a_ik||b_kj|  +  2·u_out · |exact|
// — a rigorous first-order bound (input rounding of both factors, K roundings of the sum, the final cast). The check
// uses the probabilistic model of Higham & Mary for the K accumulation roundings, λ·√K·u_acc in place of K·u_acc (λ for
// a failure probability of 10⁻⁹ per element), while K·u_acc ≤ 0.1; the worst case stays a second, reported line. The
// input term 2·u_in is per product, no sum of K roundings, so it keeps its worst case.
#pragma once
#include <string>

#include "bridge/error_spec.h"
#include "engine/prims/dot_algorithm.h"

namespace tandem {

struct DotErrorClass {
  double u_in;   // relative error of representing one input in the algorithm's format
  double u_acc;  // relative error of one accumulation step
};

DotErrorClass dot_error_class(DotAlgorithm alg, DType input_dtype);
// The check: probabilistic in K where the model holds, else the worst case (`why` says which).
ErrorSpec dot_error_spec(DotAlgorithm alg, DType input_dtype, DType out_dtype, int64_t k);
// The first-order worst case, reported beside the check.
ErrorSpec dot_worst_case_spec(DotAlgorithm alg, DType input_dtype, DType out_dtype, int64_t k);
// λ·√n with λ = √(2·ln(2n/10⁻⁹)), capped at n (the worst case): Higham & Mary's factor for
// n independent, mean-zero rounding errors, exceeded with probability ≤ 10⁻⁹.
double probabilistic_roundings(int64_t n);

}  // namespace tandem
