// Launcher of the reduction kernels (engine/cuda/reduction_kernels.cu) behind reduce_sum and
// reduce_max / reduce_min on CUDA. Plain data only; default stream, launch checked, no synchronization.
#pragma once
#include <cstdint>

#include "common/dtype.h"
#include "engine/cuda/structure_kernels.h"

namespace tandem::cuda_impl {

// The input seen as kept axes (the output, row-major) × reduced axes, each with its input strides in elements.
struct ReduceLayout {
  int kept_rank = 0, reduced_rank = 0;
  int64_t kept_shape[kMaxLayoutRank] = {}, kept_strides[kMaxLayoutRank] = {};
  int64_t reduced_shape[kMaxLayoutRank] = {}, reduced_strides[kMaxLayoutRank] = {};
  int64_t n_out = 1, n_reduced = 1;
};

enum class ReduceOp : int { sum, max, min, prod, bit_and, bit_or };

// out[o] = op over the reduced elements of output o, accumulated in f32 for f32/bf16/f16, f64 for f64, i32 for i32,
// then stored in t. max propagates NaN; an empty reduction gives 0 (sum), -inf / INT32_MIN (max) or +inf / INT32_MAX
// (min) — the CPU impl's semantics. prod: the product in the same accumulation types (i32 wraps), 1 when empty. bit_and
// / bit_or: bool or i32 only, on the bits; true / -1 and false / 0 when empty.
void reduce(ReduceOp op, DType t, const void* x, void* out, const ReduceLayout& layout);

// lax.argmax (largest) / argmin of x viewed as [outer, n, inner] along n (n >= 1): the index
// of the first NaN, else of the first extremum; out[outer * inner] as i32.
void arg_reduce(bool largest, DType t, const void* x, int32_t* out, int64_t outer, int64_t n, int64_t inner);

}  // namespace tandem::cuda_impl
