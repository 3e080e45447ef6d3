// CUDA impls of rev, pad and cumsum: the CPU impls' layouts (engine/prims/pad_rev_cumsum.h)
// run through structure_kernels.cu's strided copy (rev; pad: the padding value broadcast,
// then the operand's window) and cumsum_kernels.cu.
#include "engine/core/error.h"
#include "engine/cuda/cuda_prims.h"
#include "engine/cuda/cumsum_kernels.h"
#include "engine/cuda/structure_kernels.h"
#include "engine/prims/pad_rev_cumsum.h"

namespace tandem {
namespace {
using namespace cuda_impl;

void copy(const char* op, const Tensor& src, Tensor& dst, const CopyPlan& c) {
  if (c.shape.size() > size_t(kMaxLayoutRank))
    throw_unsupported(cat(op, " on CUDA supports rank <= ", kMaxLayoutRank, ", got ", c.shape.size()),
                      "reshape to merge axes first");
  StridedLayout l;
  l.rank = int(c.shape.size());
  for (size_t d = 0; d < c.shape.size(); ++d) {
    l.shape[d] = c.shape[d];
    l.src_strides[d] = c.src_strides[d];
    l.dst_strides[d] = c.dst_strides[d];
  }
  l.src_base = c.src_base;
  l.dst_base = c.dst_base;
  if (num_elements(c.shape) > 0) strided_copy(src.raw(), dst.raw(), l, int(dtype_size(src.dtype())));
}

std::vector<Tensor> rev_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  AType t = checked_out_types("rev", in, p)[0];
  Tensor out = Tensor::empty(t.shape, t.dtype, current_device(ctx));
  copy("rev", in[0], out, rev_plan(in[0].shape(), p.get_ints("dimensions")));
  return {out};
}

std::vector<Tensor> pad_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  AType t = checked_out_types("pad", in, p)[0];
  Tensor out = Tensor::empty(t.shape, t.dtype, current_device(ctx));
  copy("pad", in[1], out, CopyPlan{t.shape, Shape(t.shape.size(), 0), row_major_strides(t.shape)});
  copy("pad", in[0], out, pad_plan(in[0].shape(), pad_config(p, in[0].rank())));
  return {out};
}

std::vector<Tensor> cumsum_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  AType t = checked_out_types("cumsum", in, p)[0];
  Tensor out = Tensor::empty(t.shape, t.dtype, current_device(ctx));
  const CumsumPlan c = cumsum_plan(t.shape, p.get_int("axis"));
  cuda_impl::cumsum(t.dtype, in[0].raw(), out.raw(), c.outer, c.n, c.inner, p.get_bool("reverse", false));
  return {out};
}

}  // namespace

void register_pad_rev_cumsum_cuda_impls() {
  attach_cuda_impl("rev", rev_impl);
  attach_cuda_impl("pad", pad_impl);
  attach_cuda_impl("cumsum", cumsum_impl);
}

}  // namespace tandem
