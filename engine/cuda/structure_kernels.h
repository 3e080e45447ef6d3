// Launchers of the layout kernels (engine/cuda/structure_kernels.cu): one strided copy that
// broadcast_in_dim, transpose, slice, dynamic_slice, dynamic_update_slice and concatenate
// all are (the CUDA twin of engine/cpu/strided_copy.h), and iota. Plain data only (shared
// by nvcc and the C++20 sources); default stream, launch checked, no synchronization.
#pragma once
#include <cstdint>

#include "common/dtype.h"

namespace tandem::cuda_impl {

constexpr int kMaxLayoutRank = 8;  // shapes travel to the kernel by value

// Copies every index of `shape` (row-major): dst[dst_base + Σ idx·dst_strides] =
// src[src_base + Σ idx·src_strides]. Strides in elements; 0 broadcasts.
struct StridedLayout {
  int rank = 0;
  int64_t shape[kMaxLayoutRank] = {};
  int64_t src_strides[kMaxLayoutRank] = {};
  int64_t dst_strides[kMaxLayoutRank] = {};
  int64_t src_base = 0, dst_base = 0;
};

// Start indices that live on the device (dynamic_slice / dynamic_update_slice): the kernel
// adds Σ clamp(*start[d], 0, limit[d]) · stride[d] to the src base (or the dst base when
// on_dst), XLA's clamping, so the indices never travel to the host.
struct DeviceStarts {
  int rank = 0;
  const int32_t* start[kMaxLayoutRank] = {};
  int64_t limit[kMaxLayoutRank] = {};
  int64_t stride[kMaxLayoutRank] = {};
  bool on_dst = false;
};

void strided_copy(const void* src, void* dst, const StridedLayout& layout, int elem_bytes,
                  const DeviceStarts& starts = {});

// out[i] = (i / stride) % size, written as t (f64 → t as Tensor::from_f64 rounds).
void iota(DType t, void* out, int64_t n, int64_t stride, int64_t size);

}  // namespace tandem::cuda_impl
