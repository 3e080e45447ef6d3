// Device kernels behind CUDA dot_general (see dot_kernels.h). Memory-bound grid-stride
// loops with the dtype switched at run time, which keeps nvcc's work (and build time) small.
#include <cuda_fp16.h>

#include "engine/core/check_cuda.h"
#include "engine/core/half.h"
#include "engine/cuda/dot_kernels.h"

namespace tandem::cuda_impl {
namespace {

constexpr int kThreads = 256;

int blocks_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return int(b < 65536 ? (b < 1 ? 1 : b) : 65536);
}

__device__ uint16_t bf16_bits_rne(float f) {
  uint32_t u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x0040u);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}
__device__ float round_bf16(float f) { return __uint_as_float(uint32_t(bf16_bits_rne(f)) << 16); }
__device__ float truncate_bits(float f, int dropped) {
  return __uint_as_float(__float_as_uint(f) & ~((1u << dropped) - 1u));
}

// Every dtype tandem has is exact in f64.
__device__ double load(const void* p, DType t, int64_t i) {
  switch (t) {
    case DType::f64: return static_cast<const double*>(p)[i];
    case DType::f32: return static_cast<const float*>(p)[i];
    case DType::bf16: return __uint_as_float(uint32_t(static_cast<const uint16_t*>(p)[i]) << 16);
    case DType::f16: return __half2float(__ushort_as_half(static_cast<const uint16_t*>(p)[i]));
    case DType::i32: return static_cast<const int32_t*>(p)[i];
    case DType::pred: return static_cast<const uint8_t*>(p)[i] ? 1.0 : 0.0;
  }
  return 0;
}

// As the CPU's store_from_f64: narrow floats go through f32, then RNE.
__device__ void store(void* p, DType t, int64_t i, double v) {
  switch (t) {
    case DType::f64: static_cast<double*>(p)[i] = v; break;
    case DType::f32: static_cast<float*>(p)[i] = float(v); break;
    case DType::bf16: static_cast<uint16_t*>(p)[i] = bf16_bits_rne(float(v)); break;
    case DType::f16: static_cast<uint16_t*>(p)[i] = __half_as_ushort(__float2half_rn(float(v))); break;
    case DType::i32: static_cast<int32_t*>(p)[i] = int32_t(v); break;
    case DType::pred: static_cast<uint8_t*>(p)[i] = v != 0.0; break;
  }
}

__device__ void split_value(float x, SplitKind kind, int parts, float* out) {
  if (!isfinite(x)) {
    out[0] = x;
    for (int q = 1; q < parts; ++q) out[q] = 0.0f;
    return;
  }
  int dropped = kind == SplitKind::bf16 ? 16 : 13;
  float rest = x;
  for (int q = 0; q < parts - 1; ++q) {
    out[q] = truncate_bits(rest, dropped);
    rest = __fsub_rn(rest, out[q]);  // exact: the remainder fits in f32
  }
  out[parts - 1] = kind == SplitKind::bf16 ? round_bf16(rest) : round_to_tf32(rest);
}

__global__ void convert_operand_kernel(const void* src, DType src_t, Gather g, int64_t n,
                                       PartPointers dst, DType dst_t, SplitKind split, int parts) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off = i;
    if (g.rank > 0) {
      off = 0;
      int64_t rem = i;
      for (int d = g.rank - 1; d >= 0; --d) {
        off += (rem % g.dims[d]) * g.strides[d];
        rem /= g.dims[d];
      }
    }
    double v = load(src, src_t, off);
    if (split == SplitKind::none) {
      store(dst.p[0], dst_t, i, v);
      continue;
    }
    if (split == SplitKind::round_tf32) {  // the host's very function (CPU unit-tested)
      store(dst.p[0], dst_t, i, round_to_tf32(float(v)));
      continue;
    }
    float part[kMaxParts];
    split_value(float(v), split, parts, part);
    for (int q = 0; q < parts; ++q) store(dst.p[q], dst_t, i, part[q]);  // exact in dst_t
  }
}

__global__ void zero_nans_kernel(float* x, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    if (isnan(x[i])) x[i] = 0.0f;
}

__global__ void gemm_bf16_accumulate_kernel(const uint16_t* a, bool a_trans, const uint16_t* b, bool b_trans, float* c,
                                            int64_t batch, int64_t m, int64_t n, int64_t k) {
  int64_t total = batch * m * n;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < total;
       t += int64_t(gridDim.x) * blockDim.x) {
    int64_t j = t % n, i = (t / n) % m, bi = t / (m * n);
    const uint16_t* ab = a + bi * m * k;
    const uint16_t* bb = b + bi * k * n;
    float acc = 0.0f;
    for (int64_t kk = 0; kk < k; ++kk) {
      float x = __uint_as_float(uint32_t(a_trans ? ab[kk * m + i] : ab[i * k + kk]) << 16);
      float y = __uint_as_float(uint32_t(b_trans ? bb[j * k + kk] : bb[kk * n + j]) << 16);
      acc = round_bf16(__fadd_rn(acc, __fmul_rn(x, y)));  // bf16·bf16 is exact in f32
    }
    c[t] = acc;
  }
}

}  // namespace

void convert_operand(const void* src, DType src_t, const Gather& g, int64_t n, PartPointers dst,
                     DType dst_t, SplitKind split, int parts) {
  if (n == 0) return;
  convert_operand_kernel<<<blocks_for(n), kThreads>>>(src, src_t, g, n, dst, dst_t, split, parts);
  CUDA_CHECK_LAUNCH();
}

void convert(const void* src, DType src_t, void* dst, DType dst_t, int64_t n) {
  PartPointers out;
  out.p[0] = dst;
  convert_operand(src, src_t, Gather{}, n, out, dst_t, SplitKind::none, 1);
}

void zero_nans(float* x, int64_t n) {
  if (n == 0) return;
  zero_nans_kernel<<<blocks_for(n), kThreads>>>(x, n);
  CUDA_CHECK_LAUNCH();
}

void gemm_bf16_accumulate(const uint16_t* a, bool a_trans, const uint16_t* b, bool b_trans,
                          float* c, int64_t batch, int64_t m, int64_t n, int64_t k) {
  int64_t total = batch * m * n;
  if (total == 0) return;
  gemm_bf16_accumulate_kernel<<<blocks_for(total), kThreads>>>(a, a_trans, b, b_trans, c, batch, m, n, k);
  CUDA_CHECK_LAUNCH();
}

}  // namespace tandem::cuda_impl
