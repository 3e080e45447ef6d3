// One copy loop for every layout primitive: walks `shape` in row-major order and copies
// element (src_base + Σ idx·src_strides) to (dst_base + Σ idx·dst_strides). Strides are in
// elements and may be 0 (broadcast). broadcast_in_dim, transpose, slice, dynamic_slice,
// concatenate and dynamic_update_slice are all this loop with different strides.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/core/shape.h"

namespace tandem::cpu {

// The innermost dimension when it is strided on either side: a typed loop, so each element is
// one load and one store rather than a memcpy call of a run-time size (which was most of the
// time of a transpose or a broadcast: one library call per element).
// (memcpy of sizeof(T) bytes compiles to one move and, unlike a T* cast, never breaks aliasing.)
template <class T>
inline void strided_run(const char* s, int64_t src_stride, char* d, int64_t dst_stride, int64_t len) {
  const int64_t ss = src_stride * int64_t(sizeof(T)), ds = dst_stride * int64_t(sizeof(T));
  for (int64_t i = 0; i < len; ++i) std::memcpy(d + i * ds, s + i * ss, sizeof(T));
}

inline void strided_run_bytes(const char* s, int64_t src_stride, char* d, int64_t dst_stride, int64_t len,
                              size_t elem) {
  switch (elem) {
    case 1: return strided_run<uint8_t>(s, src_stride, d, dst_stride, len);
    case 2: return strided_run<uint16_t>(s, src_stride, d, dst_stride, len);
    case 4: return strided_run<uint32_t>(s, src_stride, d, dst_stride, len);
    case 8: return strided_run<uint64_t>(s, src_stride, d, dst_stride, len);
    default:
      for (int64_t i = 0; i < len; ++i)
        std::memcpy(d + i * dst_stride * int64_t(elem), s + i * src_stride * int64_t(elem), elem);
  }
}

inline void strided_copy(const void* src, int64_t src_base, const Shape& src_strides, void* dst, int64_t dst_base,
                         const Shape& dst_strides, const Shape& shape, size_t elem) {
  int64_t n = num_elements(shape);
  if (n == 0) return;
  int rank = int(shape.size());
  auto* s = static_cast<const char*>(src);
  auto* d = static_cast<char*>(dst);
  if (rank == 0) {
    std::memcpy(d + dst_base * int64_t(elem), s + src_base * int64_t(elem), elem);
    return;
  }
  std::vector<int64_t> idx(rank, 0);
  int64_t so = src_base, doff = dst_base;
  // The innermost dimension is one run: a memcpy when both sides are contiguous there, a
  // typed strided loop otherwise; the outer dimensions are walked by the index below.
  const bool inner_contig = src_strides[rank - 1] == 1 && dst_strides[rank - 1] == 1;
  const int64_t run = shape[rank - 1];
  const int outer_rank = rank - 1;
  for (int64_t done = 0; done < n; done += run) {
    if (inner_contig) std::memcpy(d + doff * int64_t(elem), s + so * int64_t(elem), size_t(run) * elem);
    else
      strided_run_bytes(s + so * int64_t(elem), src_strides[rank - 1], d + doff * int64_t(elem),
                        dst_strides[rank - 1], run, elem);
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
