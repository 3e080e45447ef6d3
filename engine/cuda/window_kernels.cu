// reduce_window_max / reduce_window_sum kernels (window_kernels.h): one thread per output element walking its window in
// row-major order over the shared WindowPlan, as the CPU impl (engine/prims/reduce_window.cc) does: same accumulator
// types (f32 for bf16/f16, i64 for i32 sums, wrapped back), same sequential order, NaN sticking in max.
#include "engine/cuda/kernel_util.cuh"
#include "engine/cuda/window_kernels.h"

namespace tandem::cuda_impl {
namespace {

template <class T, bool kMax>
__global__ void reduce_window_kernel(const T* x, T* y, WindowPlan p, int64_t n) {
  using C = std::conditional_t<std::is_same_v<T, int32_t>, long long, compute_t<T>>;
  TANDEM_GRID_STRIDE(o, n) {
    C acc = C(0);
    if constexpr (kMax) {
      if constexpr (std::is_same_v<T, int32_t>) acc = C(INT32_MIN);
      else acc = -C(INFINITY);
    }
    for (int64_t k = 0; k < p.window_size; ++k) {
      const int64_t s = window_source(p, o, k);
      if (s < 0) continue;
      const C v = C(load(x[s]));
      if constexpr (kMax) acc = (v > acc || v != v) && acc == acc ? v : acc;
      else acc += v;
    }
    if constexpr (std::is_same_v<T, int32_t>) y[o] = int32_t(acc);
    else y[o] = store<T>(acc);
  }
}
}  // namespace

void reduce_window(const void* x, void* y, const WindowPlan& p, DType t, bool max, int64_t n) {
  if (n == 0) return;
  dispatch_dtype<true, false>(t, max ? "reduce_window_max" : "reduce_window_sum", [&](auto tag) {
    using T = decltype(tag);
    if (max) reduce_window_kernel<T, true><<<blocks_for(n), kThreads>>>(static_cast<const T*>(x), static_cast<T*>(y), p, n);
    else reduce_window_kernel<T, false><<<blocks_for(n), kThreads>>>(static_cast<const T*>(x), static_cast<T*>(y), p, n);
    CUDA_CHECK_LAUNCH();
  });
}

}  // namespace tandem::cuda_impl
