// gather, scatter_add, scatter and sort kernels (gather_sort_kernels.h), simple and obviously right: gather is one
// thread per output element walking the shared IndexMap (engine/prims/gather_plan.h). scatter_add runs one thread per
// window offset over every scatter position in order when windows cannot overlap across offsets (every scattered dim
// has window size 1: embedding gradients, take_along_axis), else one thread over every update; either way each operand
// element's sum is sequential in the updates' row-major order, the CPU's; scatter runs the same kernels writing instead
// of adding, so the last update in that order wins, as on the CPU. sort gives each element its stable rank in its row
// (O(n) comparisons per element) and writes it there.
#include "engine/cuda/gather_sort_kernels.h"
#include "engine/cuda/kernel_util.cuh"

namespace tandem::cuda_impl {
namespace {

template <class W>
__global__ void gather_kernel(const W* src, W* dst, const int32_t* idx, IndexMap m, const W* fill, int64_t n) {
  TANDEM_GRID_STRIDE(i, n) {
    int64_t o = operand_offset(m, idx, i);
    dst[i] = o < 0 ? *fill : src[o];
  }
}

// scatter_add adds, scatter (Set) overwrites: the last update in row-major order wins.
template <class T, bool Set>
__device__ void add_into(T* out, const T* upd, int64_t k, int64_t i) {
  if constexpr (Set) out[k] = upd[i];
  else if constexpr (std::is_same_v<T, uint8_t>) out[k] = uint8_t(out[k] || upd[i]);
  else out[k] = store<T>(compute_t<T>(load(out[k]) + load(upd[i])));
}

// Window offset w (row-major over the walking dims) and scatter position b (over the batch
// dims) as a flat index of the updates.
__device__ int64_t update_index(const IndexMap& m, int64_t w, int64_t b) {
  int64_t idx[kMaxGatherRank];
  for (int d = m.window_rank - 1; d >= 0; --d) {
    int64_t& r = m.walks[d] >= 0 ? w : b;
    idx[d] = r % m.window_shape[d];
    r /= m.window_shape[d];
  }
  int64_t flat = 0;
  for (int d = 0; d < m.window_rank; ++d) flat = flat * m.window_shape[d] + idx[d];
  return flat;
}

template <class T, bool Set>
__global__ void scatter_add_kernel(T* out, const T* upd, const int32_t* idx, IndexMap m, int64_t windows,
                                   int64_t positions) {
  TANDEM_GRID_STRIDE(w, windows) {
    for (int64_t b = 0; b < positions; ++b) {
      int64_t i = update_index(m, w, b), k = operand_offset(m, idx, i);
      if (k >= 0) add_into<T, Set>(out, upd, k, i);
    }
  }
}

__device__ double key_at(const void* p, DType t, int64_t i) {
  switch (t) {
    case DType::f64: return static_cast<const double*>(p)[i];
    case DType::f32: return static_cast<const float*>(p)[i];
    case DType::bf16: return to_f32(static_cast<const bf16*>(p)[i]);
    case DType::f16: return to_f32(static_cast<const f16*>(p)[i]);
    case DType::i32: return static_cast<const int32_t*>(p)[i];
    case DType::pred: return static_cast<const uint8_t*>(p)[i];
  }
  return 0;
}
__device__ bool key_less(double a, double b) { return a != a ? false : (b != b ? true : a < b); }

// Overlapping windows: one thread adds every update in row-major order, as the CPU does.
template <class T, bool Set>
__global__ void scatter_add_serial_kernel(T* out, const T* upd, const int32_t* idx, IndexMap m, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (int64_t k = operand_offset(m, idx, i); k >= 0) add_into<T, Set>(out, upd, k, i);
}

// Whether element a of the row sorts before element b: by the keys, then by position.
__device__ bool before(const SortOperands& s, int64_t base, int64_t stride, int64_t a, int64_t b) {
  for (int k = 0; k < s.num_keys; ++k) {
    double x = key_at(s.in[k], s.dtype[k], base + a * stride), y = key_at(s.in[k], s.dtype[k], base + b * stride);
    if (key_less(x, y)) return true;
    if (key_less(y, x)) return false;
  }
  return a < b;
}

__device__ void copy_elem(const void* src, void* dst, DType t, int64_t from, int64_t to) {
  switch (t) {
    case DType::pred: static_cast<uint8_t*>(dst)[to] = static_cast<const uint8_t*>(src)[from]; break;
    case DType::bf16: case DType::f16:
      static_cast<uint16_t*>(dst)[to] = static_cast<const uint16_t*>(src)[from]; break;
    case DType::f32: case DType::i32:
      static_cast<uint32_t*>(dst)[to] = static_cast<const uint32_t*>(src)[from]; break;
    case DType::f64: static_cast<uint64_t*>(dst)[to] = static_cast<const uint64_t*>(src)[from]; break;
  }
}

__global__ void sort_kernel(SortOperands s, int64_t rows, int64_t n, int64_t stride) {
  TANDEM_GRID_STRIDE(e, rows * n) {
    const int64_t r = e / n, j = e % n, base = (r / stride) * stride * n + r % stride;
    int64_t rank = 0;
    for (int64_t q = 0; q < n; ++q) rank += before(s, base, stride, q, j) ? 1 : 0;
    for (int o = 0; o < s.count; ++o) copy_elem(s.in[o], s.out[o], s.dtype[o], base + j * stride, base + rank * stride);
  }
}
}  // namespace

void gather(const void* src, void* dst, const int32_t* idx, const IndexMap& m, int elem_bytes, const void* fill,
            int64_t n) {
  if (n == 0) return;
  dispatch_width(size_t(elem_bytes), [&](auto tag) {
    using W = decltype(tag);
    gather_kernel<W><<<blocks_for(n), kThreads>>>(static_cast<const W*>(src), static_cast<W*>(dst), idx, m,
                                                  static_cast<const W*>(fill), n);
    CUDA_CHECK_LAUNCH();
  });
}

template <bool Set>
void scatter_into(void* out, const void* upd, const int32_t* idx, const IndexMap& m, DType t, int64_t n) {
  if (n == 0) return;
  int64_t windows = 1;
  for (int d = 0; d < m.window_rank; ++d)
    if (m.walks[d] >= 0) windows *= m.window_shape[d];
  bool disjoint = windows > 0;
  for (int k = 0; k < m.num_index; ++k) disjoint &= m.slice[m.start_index_map[k]] == 1;
  const int64_t positions = windows > 0 ? n / windows : 0;
  dispatch_dtype<true, true>(t, "scatter_add", [&](auto tag) {
    using T = decltype(tag);
    if (disjoint) {
      scatter_add_kernel<T, Set><<<blocks_for(windows), kThreads>>>(static_cast<T*>(out), static_cast<const T*>(upd), idx,
                                                               m, windows, positions);
    } else {
      scatter_add_serial_kernel<T, Set><<<1, 1>>>(static_cast<T*>(out), static_cast<const T*>(upd), idx, m, n);
    }
    CUDA_CHECK_LAUNCH();
  });
}

void scatter_add(void* out, const void* upd, const int32_t* idx, const IndexMap& m, DType t, int64_t n) {
  scatter_into<false>(out, upd, idx, m, t, n);
}
void scatter(void* out, const void* upd, const int32_t* idx, const IndexMap& m, DType t, int64_t n) {
  scatter_into<true>(out, upd, idx, m, t, n);
}

void sort(const SortOperands& ops, int64_t rows, int64_t n, int64_t stride) {
  if (rows * n == 0) return;
  sort_kernel<<<blocks_for(rows * n), kThreads>>>(ops, rows, n, stride);
  CUDA_CHECK_LAUNCH();
}

}  // namespace tandem::cuda_impl
