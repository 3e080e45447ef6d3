// Launchers of the gather, scatter_add and sort kernels (gather_sort_kernels.cu). Plain data
// only (shared by nvcc and the C++20 sources); default stream, launch checked, no sync.
#pragma once
#include <cstdint>

#include "common/dtype.h"
#include "engine/prims/gather_plan.h"

namespace tandem::cuda_impl {

// dst[i] = src[operand_offset(m, idx, i)], or *fill (elem_bytes on the device) where that is -1.
void gather(const void* src, void* dst, const int32_t* idx, const IndexMap& m, int elem_bytes,
            const void* fill, int64_t n);
// out[operand_offset(m, idx, i)] += upd[i] for the n update elements, in row-major order of the
// updates per operand element (sequential sums, so results match the CPU's order).
void scatter_add(void* out, const void* upd, const int32_t* idx, const IndexMap& m, DType t, int64_t n);
// out[operand_offset(m, idx, i)] = upd[i], in the same order: the last update there wins.
void scatter(void* out, const void* upd, const int32_t* idx, const IndexMap& m, DType t, int64_t n);

constexpr int kMaxSortOperands = 8;
struct SortOperands {
  int count = 0, num_keys = 1;
  const void* in[kMaxSortOperands] = {};
  void* out[kMaxSortOperands] = {};
  DType dtype[kMaxSortOperands] = {};
};
// Sorts `rows` rows of n elements (element j of row r at (r / stride) * stride * n + r % stride
// + j * stride), stably, by JAX's order (NaN last, -0 == 0).
void sort(const SortOperands& ops, int64_t rows, int64_t n, int64_t stride);

}  // namespace tandem::cuda_impl
