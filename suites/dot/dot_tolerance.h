// The error class of each DotAlgorithm: how precisely it represents its inputs and how it
// accumulates. The tolerance for one output element is
//   (2·u_in + K·u_acc) · Σ_k |a_ik||b_kj|  +  u_out · |exact|
// — a rigorous first-order bound (input rounding of both factors, K roundings of the sum,
// the final cast), so a preset that is within its class cannot fail, and one that loses
// precision it should not (a wrong rounding, a dropped split term) is caught.
#pragma once
#include <string>

#include "engine/prims/dot_algorithm.h"
#include "suites/common/error_spec.h"

namespace tandem {

struct DotErrorClass {
  double u_in;   // relative error of representing one input in the algorithm's format
  double u_acc;  // relative error of one accumulation step
};

DotErrorClass dot_error_class(DotAlgorithm alg, DType input_dtype);
ErrorSpec dot_error_spec(DotAlgorithm alg, DType input_dtype, DType out_dtype, int64_t k);

}  // namespace tandem
