// One copy loop for every layout primitive: walks `shape` in row-major order and copies
// element (src_base + Σ idx·src_strides) to (dst_base + Σ idx·dst_strides). Strides are in
// elements and may be 0 (broadcast). broadcast_in_dim, transpose, slice, dynamic_slice,
// concatenate and dynamic_update_slice are all this loop with different strides.
#pragma once
#include <cstring>
#include <vector>

#include "engine/core/shape.h"

namespace tandem::cpu {

inline void strided_copy(const void* src, int64_t src_base, const Shape& src_strides, void* dst,
                         int64_t dst_base, const Shape& dst_strides, const Shape& shape,
                         size_t elem) {
  int64_t n = num_elements(shape);
  if (n == 0) return;
  int rank = int(shape.size());
  std::vector<int64_t> idx(rank, 0);
  auto* s = static_cast<const char*>(src);
  auto* d = static_cast<char*>(dst);
  int64_t so = src_base, doff = dst_base;
  // Innermost run copied with one memcpy when both sides are contiguous there.
  bool inner_contig = rank > 0 && src_strides[rank - 1] == 1 && dst_strides[rank - 1] == 1;
  int64_t run = inner_contig ? shape[rank - 1] : 1;
  int outer_rank = inner_contig ? rank - 1 : rank;
  for (int64_t done = 0; done < n; done += run) {
    std::memcpy(d + doff * elem, s + so * elem, size_t(run) * elem);
    for (int k = outer_rank - 1; k >= 0; --k) {
      if (++idx[k] < shape[k]) {
        so += src_strides[k];
        doff += dst_strides[k];
        break;
      }
      so -= src_strides[k] * (shape[k] - 1);
      doff -= dst_strides[k] * (shape[k] - 1);
      idx[k] = 0;
    }
  }
}

}  // namespace tandem::cpu
