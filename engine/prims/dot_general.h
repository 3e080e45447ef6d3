// The checked signature of a dot_general equation, shared by the shape rule and every
// backend's impl (CPU here, cuBLAS in engine/cuda/).
#pragma once
#include <string>
#include <vector>

#include "engine/core/f8.h"
#include "engine/ir/ir.h"
#include "engine/prims/dot_algorithm.h"

namespace tandem {

struct DotSignature {
  std::vector<int64_t> lhs_contract, rhs_contract, lhs_batch, rhs_batch;  // normalised axes
  std::string precision;  // Precision or preset name as given
  DType input_dtype;      // promoted operand dtype
  DType out_dtype;        // preferred_element_type, else input_dtype
  F8Operands f8;          // the operands' f8 formats, read under an ANY_F8 preset only
};

// Validates operand types and params; throws a bad-input Error with a hint otherwise.
DotSignature dot_signature(const std::vector<AType>& in, const Params& params);

}  // namespace tandem
