// Launcher of the direct conv_general_dilated kernel (engine/cuda/conv_kernels.cu): one thread per output element sums
// its window in f64 and rounds once to the output dtype, as the CPU engine's direct loop does. Plain data only (shared
// by nvcc and the C++20 sources); default stream, launch checked, no synchronization.
#pragma once
#include <cstdint>

#include "common/dtype.h"

namespace tandem::cuda_impl {

constexpr int kMaxConvSpatial = 6;

// Extents and element strides of the three operands, read through their specs (spatial
// dimensions in spec order), and the params, for one launch.
struct ConvKernelArgs {
  int nsp = 0;
  int64_t n_out = 0, o = 0, i = 0, group_out = 0, batch_groups = 1, feature_groups = 1, total = 0;
  int64_t out_sp[kMaxConvSpatial] = {}, rhs_sp[kMaxConvSpatial] = {}, lhs_sp[kMaxConvSpatial] = {};
  int64_t stride[kMaxConvSpatial] = {}, pad_lo[kMaxConvSpatial] = {};
  int64_t lhs_dil[kMaxConvSpatial] = {}, rhs_dil[kMaxConvSpatial] = {};
  int64_t l_batch = 0, l_feat = 0, l_sp[kMaxConvSpatial] = {};
  int64_t r_out = 0, r_in = 0, r_sp[kMaxConvSpatial] = {};
  int64_t o_batch = 0, o_feat = 0, o_sp[kMaxConvSpatial] = {};
};

void conv_general_dilated(DType in, DType out, const void* lhs, const void* rhs, void* dst, const ConvKernelArgs& a);

}  // namespace tandem::cuda_impl
