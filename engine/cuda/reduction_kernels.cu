// Reduction kernels (see reduction_kernels.h). Two shapes of work: short reductions (a few hundred elements or fewer
// per output) give each output one thread and a sequential loop; long ones give each output a block that strides over
// its elements and combines the per-thread partials with CUB's BlockReduce. Either way every output is written by one
// thread, with no atomics, so results are deterministic run to run.
#include <climits>

#include <cub/block/block_reduce.cuh>

#include "engine/cuda/kernel_util.cuh"
#include "engine/cuda/reduction_kernels.h"

namespace tandem::cuda_impl {
namespace {

constexpr int64_t kPerThreadMax = 256;  // longest reduction one thread does alone

struct SumOp {
  template <class C> __device__ C operator()(const C& a, const C& b) const { return a + b; }
  template <class C> __device__ static C identity() { return C(0); }
};

// NaN-propagating max, as the CPU's reduce_max: any NaN makes the result NaN.
struct MaxOp {
  template <class C> __device__ C operator()(const C& a, const C& b) const {
    if (is_nan(a) || is_nan(b)) return quiet_nan<C>();
    return b > a ? b : a;
  }
  template <class C> __device__ static C identity() {
    if constexpr (std::is_same_v<C, double>) return __longlong_as_double(int64_t(0xfff0000000000000ULL));
    else if constexpr (std::is_same_v<C, float>) return __int_as_float(int(0xff800000u));
    else return INT_MIN;
  }
};

// NaN-propagating min, as the CPU's reduce_min: any NaN makes the result NaN; empty is +inf.
struct MinOp {
  template <class C> __device__ C operator()(const C& a, const C& b) const {
    if (is_nan(a) || is_nan(b)) return quiet_nan<C>();
    return b < a ? b : a;
  }
  template <class C> __device__ static C identity() {
    if constexpr (std::is_same_v<C, double>) return __longlong_as_double(int64_t(0x7ff0000000000000ULL));
    else if constexpr (std::is_same_v<C, float>) return __int_as_float(int(0x7f800000u));
    else return INT_MAX;
  }
};

// The product; integers multiply unsigned, so i32 wraps without undefined behaviour.
struct ProdOp {
  template <class C> __device__ C operator()(const C& a, const C& b) const {
    if constexpr (std::is_integral_v<C>) return C(uint32_t(a) * uint32_t(b));
    else return a * b;
  }
  template <class C> __device__ static C identity() { return C(1); }
};
// reduce_and / reduce_or on bool (uint8_t 0/1) or i32 bits.
struct AndOp {
  template <class C> __device__ C operator()(const C& a, const C& b) const { return C(a & b); }
  template <class C> __device__ static C identity() { return C(std::is_same_v<C, uint8_t> ? 1 : -1); }
};
struct OrOp {
  template <class C> __device__ C operator()(const C& a, const C& b) const { return C(a | b); }
  template <class C> __device__ static C identity() { return C(0); }
};

__device__ int64_t offset_of(int64_t flat, int rank, const int64_t* shape, const int64_t* strides) {
  int64_t off = 0;
  for (int d = rank - 1; d >= 0; --d) {
    off += (flat % shape[d]) * strides[d];
    flat /= shape[d];
  }
  return off;
}

template <class T, class Op>
__global__ void reduce_per_thread(const T* x, T* out, ReduceLayout l, Op op) {
  using C = compute_t<T>;
  TANDEM_GRID_STRIDE(o, l.n_out) {
    const T* base = x + offset_of(o, l.kept_rank, l.kept_shape, l.kept_strides);
    C acc = Op::template identity<C>();
    for (int64_t r = 0; r < l.n_reduced; ++r)
      acc = op(acc, load(base[offset_of(r, l.reduced_rank, l.reduced_shape, l.reduced_strides)]));
    out[o] = store<T>(acc);
  }
}

template <class T, class Op>
__global__ void reduce_per_block(const T* x, T* out, ReduceLayout l, Op op) {
  using C = compute_t<T>;
  using BlockReduce = cub::BlockReduce<C, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  for (int64_t o = blockIdx.x; o < l.n_out; o += gridDim.x) {
    const T* base = x + offset_of(o, l.kept_rank, l.kept_shape, l.kept_strides);
    C acc = Op::template identity<C>();
    for (int64_t r = threadIdx.x; r < l.n_reduced; r += blockDim.x)
      acc = op(acc, load(base[offset_of(r, l.reduced_rank, l.reduced_shape, l.reduced_strides)]));
    C total = BlockReduce(temp).Reduce(acc, op);
    if (threadIdx.x == 0) out[o] = store<T>(total);
    __syncthreads();  // temp is reused by this block's next output
  }
}

template <class T, class Op>
void launch(const void* x, void* out, const ReduceLayout& l, Op op) {
  if (l.n_out == 0) return;
  auto* px = static_cast<const T*>(x);
  auto* po = static_cast<T*>(out);
  if (l.n_reduced <= kPerThreadMax) {
    reduce_per_thread<T><<<blocks_for(l.n_out), kThreads>>>(px, po, l, op);
  } else {
    int blocks = int(l.n_out < 65535 ? l.n_out : 65535);
    reduce_per_block<T><<<blocks, kThreads>>>(px, po, l, op);
  }
  CUDA_CHECK_LAUNCH();
}

// One thread per output walks its row: the first NaN ends the walk, a tie keeps the earlier index.
template <class T>
__global__ void arg_kernel(const T* x, int32_t* out, int64_t outer, int64_t n, int64_t inner, bool largest) {
  TANDEM_GRID_STRIDE(o, outer * inner) {
    const T* row = x + (o / inner) * n * inner + o % inner;
    auto best = load(row[0]);
    int32_t at = 0;
    for (int64_t k = 1; k < n && !is_nan(best); ++k) {
      const auto v = load(row[k * inner]);
      if (is_nan(v) || (largest ? v > best : v < best)) best = v, at = int32_t(k);
    }
    out[o] = at;
  }
}

}  // namespace

void reduce(ReduceOp op, DType t, const void* x, void* out, const ReduceLayout& layout) {
  if (op == ReduceOp::bit_and || op == ReduceOp::bit_or) {
    auto run = [&](auto tag) {
      using T = decltype(tag);
      if (op == ReduceOp::bit_and) launch<T>(x, out, layout, AndOp{});
      else launch<T>(x, out, layout, OrOp{});
    };
    if (t == DType::i32) return run(int32_t{});
    if (t == DType::pred) return run(uint8_t{});
    throw_bad_input(cat("reduce_and / reduce_or are not defined on ", dtype_name(t)));
  }
  const char* name = op == ReduceOp::sum ? "reduce_sum" : op == ReduceOp::max ? "reduce_max"
                     : op == ReduceOp::min ? "reduce_min" : "reduce_prod";
  dispatch_dtype<true, false>(t, name, [&](auto tag) {
    using T = decltype(tag);
    if (op == ReduceOp::sum) launch<T>(x, out, layout, SumOp{});
    else if (op == ReduceOp::max) launch<T>(x, out, layout, MaxOp{});
    else if (op == ReduceOp::min) launch<T>(x, out, layout, MinOp{});
    else launch<T>(x, out, layout, ProdOp{});
  });
}

void arg_reduce(bool largest, DType t, const void* x, int32_t* out, int64_t outer, int64_t n, int64_t inner) {
  if (outer * inner == 0) return;
  dispatch_dtype<true, true>(t, largest ? "argmax" : "argmin", [&](auto tag) {
    using T = decltype(tag);
    arg_kernel<T><<<blocks_for(outer * inner), kThreads>>>(static_cast<const T*>(x), out, outer, n, inner, largest);
    CUDA_CHECK_LAUNCH();
  });
}

}  // namespace tandem::cuda_impl
