// The checked signature of a dot_general equation, shared by the shape rule and every
// backend's impl (CPU here, cuBLAS in engine/cuda/).
#pragma once
#include <string>
#include <vector>

#include "engine/ir/ir.h"
#include "engine/prims/dot_algorithm.h"

namespace tandem {

struct DotSignature {
  std::vector<int64_t> lhs_contract, rhs_contract, lhs_batch, rhs_batch;  // normalised axes
  std::string precision;  // Precision or preset name as given
  DType input_dtype;      // promoted operand dtype
  DType out_dtype;        // preferred_element_type, else input_dtype
  // What a precision (not a preset) picks its algorithm from: the inputs' dtype, or f64 when
  // preferred_element_type is f64 — JAX then accumulates in f64 (f16·f16 → f64 is exact).
  DType algorithm_dtype;
};

// Validates operand types and params; throws a bad-input Error with a hint otherwise.
DotSignature dot_signature(const std::vector<AType>& in, const Params& params);

}  // namespace tandem
