// CPU dot_general: canonicalises both operands to batched GEMM form and runs the resolved
// DotAlgorithm for real — bf16/tf32/f16/f8 input rounding, X3/X6/X9 split products, narrow
// accumulators — on the chosen BLAS, so CPU numerics match what a GPU would compute.
#pragma once
#include <vector>

#include "engine/core/dot_algorithm_types.h"
#include "engine/core/f8.h"
#include "engine/core/tensor.h"

namespace tandem::cpu {

// dot_general as batched GEMM: out[b, m, n] = Σ_k lhs[b, m, k] · rhs[b, k, n], where each
// operand's axes are permuted into (batch…, free…, contract…) / (batch…, contract…, free…).
struct DotPlan {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  size_t n_batch = 0, n_lhs_free = 0, n_contract = 0;
  std::vector<int64_t> lhs_perm, rhs_perm;  // permutations into canonical order
  Shape out_shape;
};

DotPlan plan_dot(const Shape& lhs, const Shape& rhs, const std::vector<int64_t>& lhs_contract,
                 const std::vector<int64_t>& rhs_contract, const std::vector<int64_t>& lhs_batch,
                 const std::vector<int64_t>& rhs_batch);

// f8: the operands' formats under an ANY_F8 preset (ignored by the others).
Tensor dot_general(const Tensor& lhs, const Tensor& rhs, const DotPlan& plan, DotAlgorithm alg,
                   DType out_dtype, const F8Operands& f8 = {});

// Splits x into `parts` terms exactly representable in bf16 or tf32 with x ≈ Σ terms:
// hi = truncation, middle terms truncations of the remainder, the last term RNE of it.
// Non-finite x keeps x in hi and zeros elsewhere, so Inf·lo cross terms cannot make NaN.
void split_value(float x, SplitFormat fmt, int parts, float* out);

}  // namespace tandem::cpu
