// CUDA impls of reduce_sum, reduce_max, reduce_min, reduce_prod, reduce_and / reduce_or and argmax / argmin: the
// operand's axes split into kept (the output, row-major) and reduced, with their strides, for reduction_kernels.cu.
// Accumulation types, NaN propagation and empty-reduction values are the CPU impl's (engine/prims/reductions.cc).
#include <set>

#include "engine/core/error.h"
#include "engine/cuda/cuda_prims.h"
#include "engine/cuda/reduction_kernels.h"

namespace tandem {
namespace {
using namespace cuda_impl;

ReduceLayout reduce_layout(const char* op, const Shape& shape, const std::vector<int64_t>& axes) {
  std::set<int> reduced;
  for (int64_t a : axes) reduced.insert(normalize_axis(a, int(shape.size()), op));
  ReduceLayout l;
  Shape st = row_major_strides(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    bool r = reduced.count(int(d)) > 0;
    int& rank = r ? l.reduced_rank : l.kept_rank;
    if (rank == kMaxLayoutRank)
      throw_unsupported(cat(op, " on CUDA supports at most ", kMaxLayoutRank, " kept and ",
                            kMaxLayoutRank, " reduced axes"), "reshape to merge axes first");
    (r ? l.reduced_shape : l.kept_shape)[rank] = shape[d];
    (r ? l.reduced_strides : l.kept_strides)[rank] = st[d];
    (r ? l.n_reduced : l.n_out) *= shape[d];
    ++rank;
  }
  return l;
}

Impl reduce_impl(const char* name, ReduceOp op) {
  return [name, op](const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
    AType t = checked_out_types(name, in, p)[0];
    ReduceLayout l = reduce_layout(name, in[0].shape(), p.get_ints("axes"));
    Tensor out = Tensor::empty(t.shape, t.dtype, current_device(ctx));
    reduce(op, t.dtype, in[0].raw(), out.raw(), l);
    return std::vector<Tensor>{out};
  };
}

// argmax / argmin: the operand as [outer, n, inner] around the one axis (the shape rule has
// checked it and its index_dtype).
Impl arg_impl(const char* name, bool largest) {
  return [name, largest](const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
    AType t = checked_out_types(name, in, p)[0];
    const Shape& s = in[0].shape();
    const int axis = normalize_axis(p.get_ints("axes")[0], int(s.size()), name);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < int(s.size()); ++d)
      if (d < axis) outer *= s[size_t(d)];
      else if (d > axis) inner *= s[size_t(d)];
    Tensor out = Tensor::empty(t.shape, t.dtype, current_device(ctx));
    arg_reduce(largest, in[0].dtype(), in[0].raw(), out.data<int32_t>(), outer, s[size_t(axis)], inner);
    return std::vector<Tensor>{out};
  };
}

}  // namespace

void register_reduction_cuda_impls() {
  attach_cuda_impl("reduce_sum", reduce_impl("reduce_sum", ReduceOp::sum));
  attach_cuda_impl("reduce_max", reduce_impl("reduce_max", ReduceOp::max));
  attach_cuda_impl("reduce_min", reduce_impl("reduce_min", ReduceOp::min));
  attach_cuda_impl("reduce_prod", reduce_impl("reduce_prod", ReduceOp::prod));
  attach_cuda_impl("reduce_and", reduce_impl("reduce_and", ReduceOp::bit_and));
  attach_cuda_impl("reduce_or", reduce_impl("reduce_or", ReduceOp::bit_or));
  attach_cuda_impl("argmax", arg_impl("argmax", true));
  attach_cuda_impl("argmin", arg_impl("argmin", false));
}

}  // namespace tandem
