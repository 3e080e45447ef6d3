// Layout kernels (see structure_kernels.h): one thread per output element decomposes its
// flat index over the shape and reads its source by strides. Memory-bound and simple on
// purpose: every layout primitive is this one obviously-right loop with different strides.
#include "engine/cuda/kernel_util.cuh"
#include "engine/cuda/structure_kernels.h"

namespace tandem::cuda_impl {
namespace {

__device__ int64_t device_starts_offset(const DeviceStarts& s) {
  int64_t off = 0;
  for (int d = 0; d < s.rank; ++d) {
    int64_t v = *s.start[d];
    v = v < 0 ? 0 : (v > s.limit[d] ? s.limit[d] : v);
    off += v * s.stride[d];
  }
  return off;
}

template <class W>
__global__ void strided_copy_kernel(const W* src, W* dst, StridedLayout l, DeviceStarts s, int64_t n) {
  const int64_t dyn = device_starts_offset(s);
  const int64_t src_base = l.src_base + (s.on_dst ? 0 : dyn);
  const int64_t dst_base = l.dst_base + (s.on_dst ? dyn : 0);
  TANDEM_GRID_STRIDE(i, n) {
    int64_t rem = i, so = src_base, doff = dst_base;
    for (int d = l.rank - 1; d >= 0; --d) {
      int64_t k = rem % l.shape[d];
      rem /= l.shape[d];
      so += k * l.src_strides[d];
      doff += k * l.dst_strides[d];
    }
    dst[doff] = src[so];
  }
}

template <class T>
__global__ void iota_kernel(T* out, int64_t n, int64_t stride, int64_t size) {
  TANDEM_GRID_STRIDE(i, n) {
    double v = double((i / stride) % size);
    if constexpr (std::is_same_v<T, double>) out[i] = v;
    else if constexpr (std::is_same_v<T, int32_t>) out[i] = int32_t(v);
    else out[i] = store<T>(float(v));  // f32, and bf16/f16 rounded from f32 like the CPU
  }
}

}  // namespace

void strided_copy(const void* src, void* dst, const StridedLayout& layout, int elem_bytes, const DeviceStarts& starts) {
  int64_t n = 1;
  for (int d = 0; d < layout.rank; ++d) n *= layout.shape[d];
  if (n == 0) return;
  dispatch_width(size_t(elem_bytes), [&](auto tag) {
    using W = decltype(tag);
    strided_copy_kernel<W><<<blocks_for(n), kThreads>>>(static_cast<const W*>(src),
                                                        static_cast<W*>(dst), layout, starts, n);
    CUDA_CHECK_LAUNCH();
  });
}

void iota(DType t, void* out, int64_t n, int64_t stride, int64_t size) {
  if (n == 0) return;
  dispatch_dtype<true, false>(t, "iota", [&](auto tag) {
    using T = decltype(tag);
    iota_kernel<T><<<blocks_for(n), kThreads>>>(static_cast<T*>(out), n, stride, size);
    CUDA_CHECK_LAUNCH();
  });
}

}  // namespace tandem::cuda_impl
