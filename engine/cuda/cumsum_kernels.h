// Launcher of the cumsum kernel (engine/cuda/cumsum_kernels.cu) behind cumsum on CUDA. Plain
// data only; default stream, launch checked, no synchronization.
#pragma once
#include <cstdint>

#include "common/dtype.h"

namespace tandem::cuda_impl {

// x viewed as [outer, n, inner]: y[o, k, j] = Σ x[o, k', j] over k' <= k (k' >= k when
// reverse), accumulated in order in x's own dtype (bf16/f16 round every partial sum; i32
// wraps), as the CPU impl (engine/prims/pad_rev_cumsum.cc). One thread per (o, j) line.
void cumsum(DType t, const void* x, void* y, int64_t outer, int64_t n, int64_t inner, bool reverse);

}  // namespace tandem::cuda_impl
