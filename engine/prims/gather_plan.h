// The index map that gather and scatter_add share (XLA's semantics, with JAX's batching dims):
// for each element of the "window space" (gather's output, scatter_add's updates) the operand
// element it reads or adds into, or -1 when the mode fills (gather) or drops (scatter) it.
// Plain data and host/device functions, so the CPU impls (gather_scatter.cc) and the CUDA
// kernels (engine/cuda/gather_sort_kernels.cu) walk the one map.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define TANDEM_HD __host__ __device__
#else
#define TANDEM_HD
#endif

namespace tandem {

constexpr int kMaxGatherRank = 8;  // travels to the CUDA kernel by value

struct IndexMap {
  int operand_rank = 0, window_rank = 0, indices_rank = 0;  // indices_rank counts the index-vector dim
  int64_t operand_shape[kMaxGatherRank] = {}, operand_strides[kMaxGatherRank] = {};
  int64_t window_shape[kMaxGatherRank] = {};   // gather's output / scatter's updates
  int64_t slice[kMaxGatherRank] = {};          // window extent per operand dim
  int64_t index_strides[kMaxGatherRank] = {};  // row-major strides of the indices array
  // Per window-space dim: the operand dim it walks (an offset / update-window dim), or -1 for
  // a batch (scatter) dim, which then indexes indices dim batch_pos[d].
  int walks[kMaxGatherRank] = {}, batch_pos[kMaxGatherRank] = {};
  int num_index = 0, start_index_map[kMaxGatherRank] = {};  // index vector k -> operand dim
  int num_batching = 0, operand_batching[kMaxGatherRank] = {}, indices_batching[kMaxGatherRank] = {};
  bool clamp = true;  // clamp starts into [0, dim - slice]; false: an out-of-range window is -1
};

// The operand offset window element `flat` reads / adds into, or -1.
TANDEM_HD inline int64_t operand_offset(const IndexMap& m, const int32_t* indices, int64_t flat) {
  int64_t win[kMaxGatherRank], start[kMaxGatherRank] = {}, off[kMaxGatherRank] = {};
  for (int d = m.window_rank - 1; d >= 0; --d) {
    win[d] = flat % m.window_shape[d];
    flat /= m.window_shape[d];
  }
  int64_t batch[kMaxGatherRank] = {}, base = 0;
  for (int d = 0; d < m.window_rank; ++d) {
    if (m.walks[d] >= 0) {
      off[m.walks[d]] = win[d];
    } else {
      batch[m.batch_pos[d]] = win[d];
      base += win[d] * m.index_strides[m.batch_pos[d]];
    }
  }
  const int64_t vec_stride = m.index_strides[m.indices_rank - 1];
  for (int k = 0; k < m.num_index; ++k) {
    const int d = m.start_index_map[k];
    const int64_t hi = m.operand_shape[d] - m.slice[d];
    int64_t s = indices[base + k * vec_stride];
    if (m.clamp) {
      s = s < 0 ? 0 : (s > hi ? hi : s);
    } else if (s < 0 || s > hi) {
      return -1;
    }
    start[d] = s;
  }
  for (int i = 0; i < m.num_batching; ++i) start[m.operand_batching[i]] = batch[m.indices_batching[i]];
  int64_t o = 0;
  for (int d = 0; d < m.operand_rank; ++d) o += (start[d] + off[d]) * m.operand_strides[d];
  return o;
}

}  // namespace tandem
