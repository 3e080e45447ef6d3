// The window walk of reduce_window_max / reduce_window_sum (XLA's ReduceWindow with JAX's
// params): the operand is dilated by base_dilation (holes hold the init value), padded by
// (lo, hi) (the init value too), and each output element reduces the window at
// out * stride + k * window_dilation. Plain data and host/device functions, so the CPU impls
// (reduce_window.cc) and the CUDA kernels (engine/cuda/window_kernels.cu) walk the one plan.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define TANDEM_WHD __host__ __device__
#else
#define TANDEM_WHD
#endif

namespace tandem {

constexpr int kMaxWindowRank = 8;  // travels to the CUDA kernel by value

struct WindowPlan {
  int rank = 0;
  int64_t in_shape[kMaxWindowRank] = {}, out_shape[kMaxWindowRank] = {}, window[kMaxWindowRank] = {};
  int64_t strides[kMaxWindowRank] = {}, pad_lo[kMaxWindowRank] = {};
  int64_t base_dilation[kMaxWindowRank] = {}, window_dilation[kMaxWindowRank] = {};
  int64_t window_size = 1;  // product of window[]
};

// The operand's flat index that window offset `k` (row-major over window[]) of output element
// `out` (row-major over out_shape) reads, or -1 for padding or a dilation hole.
TANDEM_WHD inline int64_t window_source(const WindowPlan& p, int64_t out, int64_t k) {
  int64_t o[kMaxWindowRank], w[kMaxWindowRank];
  for (int d = p.rank - 1; d >= 0; --d) {
    o[d] = out % p.out_shape[d];
    out /= p.out_shape[d];
    w[d] = k % p.window[d];
    k /= p.window[d];
  }
  int64_t flat = 0;
  for (int d = 0; d < p.rank; ++d) {
    const int64_t at = o[d] * p.strides[d] + w[d] * p.window_dilation[d] - p.pad_lo[d];  // in the dilated operand
    if (at < 0 || at % p.base_dilation[d] != 0) return -1;
    const int64_t i = at / p.base_dilation[d];
    if (i >= p.in_shape[d]) return -1;
    flat = flat * p.in_shape[d] + i;
  }
  return flat;
}

}  // namespace tandem
