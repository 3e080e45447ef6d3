// CUDA impl of conv_general_dilated: the direct kernel of conv_kernels.cu over the geometry
// the primitive's own shape rule computes (engine/prims/conv.h), so both backends validate
// alike. Not yet cuDNN: a plain kernel, correct for every layout, group count and dilation.
#include "engine/core/error.h"
#include "engine/cuda/conv_kernels.h"
#include "engine/cuda/cuda_prims.h"
#include "engine/prims/conv.h"

namespace tandem {
namespace {
using namespace cuda_impl;

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> r(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) r[d - 1] = r[d] * s[d];
  return r;
}

ConvKernelArgs kernel_args(const Tensor& lhs, const Tensor& rhs, const ConvSpec& s, const ConvGeometry& g) {
  if (g.nsp > kMaxConvSpatial)
    throw_unsupported(cat("conv_general_dilated on CUDA: ", g.nsp, " spatial dimensions"),
                      cat("the CUDA kernel takes at most ", kMaxConvSpatial));
  const auto ls = strides_of(lhs.shape()), rs = strides_of(rhs.shape()), os = strides_of(g.out.shape);
  ConvKernelArgs a;
  a.nsp = int(g.nsp);
  a.n_out = g.n_out, a.o = g.o, a.i = g.i, a.group_out = g.o / g.groups;
  a.batch_groups = s.batch_group_count, a.feature_groups = s.feature_group_count;
  a.total = num_elements(g.out.shape);
  a.l_batch = ls[size_t(s.lhs_spec[0])], a.l_feat = ls[size_t(s.lhs_spec[1])];
  a.r_out = rs[size_t(s.rhs_spec[0])], a.r_in = rs[size_t(s.rhs_spec[1])];
  a.o_batch = os[size_t(s.out_spec[0])], a.o_feat = os[size_t(s.out_spec[1])];
  for (size_t d = 0; d < size_t(g.nsp); ++d) {
    a.out_sp[d] = g.out_sp[d], a.rhs_sp[d] = g.rhs_sp[d], a.lhs_sp[d] = g.lhs_sp[d];
    a.stride[d] = s.window_strides[d], a.pad_lo[d] = s.pad_lo[d];
    a.lhs_dil[d] = s.lhs_dilation[d], a.rhs_dil[d] = s.rhs_dilation[d];
    a.l_sp[d] = ls[size_t(s.lhs_spec[d + 2])], a.r_sp[d] = rs[size_t(s.rhs_spec[d + 2])];
    a.o_sp[d] = os[size_t(s.out_spec[d + 2])];
  }
  return a;
}

std::vector<Tensor> conv_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  checked_out_types("conv_general_dilated", in, p);
  Device d = current_device(ctx);
  const ConvSpec s = conv_spec(p);
  const ConvGeometry g = conv_geometry(in[0].type(), in[1].type(), s);
  Tensor out = Tensor::empty(g.out.shape, g.out.dtype, d);
  // No input features or no taps: every thread sums nothing and writes zero.
  conv_general_dilated(in[0].dtype(), g.out.dtype, in[0].raw(), in[1].raw(), out.raw(), kernel_args(in[0], in[1], s, g));
  return {out};
}

}  // namespace

void register_conv_cuda_impls() { attach_cuda_impl("conv_general_dilated", conv_impl); }

}  // namespace tandem
