// The direct conv_general_dilated kernel (engine/cuda/conv_kernels.h): each thread owns one
// output element (n, o, position), walks its group's input features and the kernel taps, and
// reads the lhs where a tap lands on a real (not padded, not dilation-hole) element.
#include "engine/cuda/conv_kernels.h"
#include "engine/cuda/kernel_util.cuh"

namespace tandem::cuda_impl {
namespace {

template <class T, class U>
__global__ void conv_kernel(const T* lhs, const T* rhs, U* out, ConvKernelArgs a) {
  TANDEM_GRID_STRIDE(idx, a.total) {
    int64_t rest = idx, p[kMaxConvSpatial], out_at = 0;
    for (int d = a.nsp - 1; d >= 0; --d) {
      p[d] = rest % a.out_sp[d];
      rest /= a.out_sp[d];
      out_at += p[d] * a.o_sp[d];
    }
    const int64_t o = rest % a.o, n = rest / a.o, g = o / a.group_out;
    const int64_t lb = a.batch_groups > 1 ? n + g * a.n_out : n, c0 = a.feature_groups > 1 ? g * a.i : 0;
    out_at += n * a.o_batch + o * a.o_feat;
    int64_t taps = 1;
    for (int d = 0; d < a.nsp; ++d) taps *= a.rhs_sp[d];
    double acc = 0;
    for (int64_t t = 0; t < taps; ++t) {
      int64_t tr = t, l_at = lb * a.l_batch, r_at = o * a.r_out;
      bool inside = true;
      for (int d = a.nsp - 1; d >= 0 && inside; --d) {
        const int64_t k = tr % a.rhs_sp[d];
        tr /= a.rhs_sp[d];
        const int64_t pos = p[d] * a.stride[d] + k * a.rhs_dil[d] - a.pad_lo[d];
        inside = pos >= 0 && pos % a.lhs_dil[d] == 0 && pos / a.lhs_dil[d] < a.lhs_sp[d];
        l_at += (pos / a.lhs_dil[d]) * a.l_sp[d];
        r_at += k * a.r_sp[d];
      }
      if (!inside) continue;
      for (int64_t ii = 0; ii < a.i; ++ii)
        acc += double(load(lhs[l_at + (c0 + ii) * a.l_feat])) * double(load(rhs[r_at + ii * a.r_in]));
    }
    out[out_at] = store<U>(compute_t<U>(acc));
  }
}

}  // namespace

void conv_general_dilated(DType in, DType out, const void* lhs, const void* rhs, void* dst, const ConvKernelArgs& a) {
  if (a.total == 0) return;
  dispatch_dtype<true, false>(in, "conv_general_dilated", [&](auto t) {
    using T = decltype(t);
    dispatch_dtype<true, false>(out, "conv_general_dilated", [&](auto u) {
      using U = decltype(u);
      conv_kernel<T, U><<<blocks_for(a.total), kThreads>>>(static_cast<const T*>(lhs), static_cast<const T*>(rhs),
                                                           static_cast<U*>(dst), a);
      CUDA_CHECK_LAUNCH();
    });
  });
}

}  // namespace tandem::cuda_impl
