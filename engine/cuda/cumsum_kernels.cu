// The cumsum kernel (cumsum_kernels.h): each thread walks one line along the axis in order,
// so the sums round exactly as the CPU impl's sequential loop does.
#include "engine/cuda/cumsum_kernels.h"
#include "engine/cuda/kernel_util.cuh"

namespace tandem::cuda_impl {
namespace {

template <class T>
__global__ void cumsum_kernel(const T* x, T* y, int64_t outer, int64_t n, int64_t inner, bool reverse) {
  using C = std::conditional_t<std::is_same_v<T, int32_t>, uint32_t, compute_t<T>>;  // i32 wraps
  TANDEM_GRID_STRIDE(line, outer * inner) {
    const int64_t o = line / inner, j = line % inner;
    C acc = C(0);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t i = (o * n + (reverse ? n - 1 - k : k)) * inner + j;
      if constexpr (std::is_same_v<T, int32_t>) {
        acc += uint32_t(x[i]);
        y[i] = int32_t(acc);
      } else {
        y[i] = store<T>(acc + load(x[i]));
        acc = load(y[i]);  // the partial sum as stored: bf16/f16 round at every step
      }
    }
  }
}

}  // namespace

void cumsum(DType t, const void* x, void* y, int64_t outer, int64_t n, int64_t inner, bool reverse) {
  if (outer * inner == 0 || n == 0) return;
  dispatch_dtype<true, false>(t, "cumsum", [&](auto tag) {
    using T = decltype(tag);
    cumsum_kernel<T><<<blocks_for(outer * inner), kThreads>>>(static_cast<const T*>(x), static_cast<T*>(y),
                                                               outer, n, inner, reverse);
    CUDA_CHECK_LAUNCH();
  });
}

}  // namespace tandem::cuda_impl
