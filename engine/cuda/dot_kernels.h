// Device kernels behind CUDA dot_general (launched from engine/cuda/dot_cuda.cc): gather and convert operands into
// GEMM-ready storage, including the split presets' part extraction; NaN→0 on the small-term sum; the bf16-accumulator
// GEMM cuBLAS lacks; result conversion. Launchers run on the current device's default stream and check the launch.
#pragma once
#include <cstdint>

#include "common/dtype.h"

namespace tandem::cuda_impl {

constexpr int kMaxGatherRank = 8;

// Reads a tensor in permuted order: element i of the output order (row-major over dims)
// comes from source offset Σ_j idx_j · strides[j]. rank 0: the source is read in order.
struct Gather {
  int rank = 0;
  int64_t dims[kMaxGatherRank] = {};
  int64_t strides[kMaxGatherRank] = {};
};

// Split presets' part formats (same rule as cpu::split_value: hi and middle terms are truncations, the last term is
// RNE, non-finite values stay whole in hi). round_tf32 is no split: one part, the value rounded to tf32 by
// round_to_tf32 (engine/core/half.h, RNE), the TF32 preset's inputs. cuBLAS's FAST_TF32 compute type only allows tensor
// cores: at a shape where it picks a SIMT kernel the inputs would stay f32, and its own conversion is not documented to
// round to nearest even, so the engine rounds them itself, as the CPU does.
enum class SplitKind : int { none, bf16, tf32, round_tf32 };

constexpr int kMaxParts = 3;
struct PartPointers {
  void* p[kMaxParts] = {};
};

// dst.p[q][i] = part q of value(src[gather(i)]), q < parts, written as dst_t (RNE when
// narrowing, via f32 like the CPU engine). SplitKind::none: one part, the value itself.
void convert_operand(const void* src, DType src_t, const Gather& g, int64_t n, PartPointers dst,
                     DType dst_t, SplitKind split, int parts);

// dst[i] = src[i] converted to dst_t (results to the requested output dtype).
void convert(const void* src, DType src_t, void* dst, DType dst_t, int64_t n);

// x[i] = 0 where x[i] is NaN.
void zero_nans(float* x, int64_t n);

// Row-major batched c[b] (m×n, f32) = a[b] · b[b] over bf16 inputs (trans: stored as the
// transpose), with the accumulator rounded to bf16 after every add, k ascending — the
// BF16_BF16_BF16 preset exactly as the CPU engine computes it.
void gemm_bf16_accumulate(const uint16_t* a, bool a_trans, const uint16_t* b, bool b_trans,
                          float* c, int64_t batch, int64_t m, int64_t n, int64_t k);

}  // namespace tandem::cuda_impl
