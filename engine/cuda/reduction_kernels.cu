// Reduction kernels (see reduction_kernels.h). Two shapes of work: short reductions (a few
// hundred elements or fewer per output) give each output one thread and a sequential loop;
// long ones give each output a block that strides over its elements and combines the
// per-thread partials with CUB's BlockReduce. Either way every output is written by one
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

}  // namespace

void reduce(ReduceOp op, DType t, const void* x, void* out, const ReduceLayout& layout) {
  const char* name = op == ReduceOp::sum ? "reduce_sum" : op == ReduceOp::max ? "reduce_max" : "reduce_min";
  dispatch_dtype<true, false>(t, name, [&](auto tag) {
    using T = decltype(tag);
    if (op == ReduceOp::sum) launch<T>(x, out, layout, SumOp{});
    else if (op == ReduceOp::max) launch<T>(x, out, layout, MaxOp{});
    else launch<T>(x, out, layout, MinOp{});
  });
}

}  // namespace tandem::cuda_impl
