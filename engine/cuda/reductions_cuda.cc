// CUDA impls of reduce_sum, reduce_max and reduce_min: the operand's axes split into kept (the output,
// row-major) and reduced, with their strides, for reduction_kernels.cu. Accumulation types,
// NaN propagation and empty-reduction values are the CPU impl's (engine/prims/reductions.cc).
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

}  // namespace

void register_reduction_cuda_impls() {
  attach_cuda_impl("reduce_sum", reduce_impl("reduce_sum", ReduceOp::sum));
  attach_cuda_impl("reduce_max", reduce_impl("reduce_max", ReduceOp::max));
  attach_cuda_impl("reduce_min", reduce_impl("reduce_min", ReduceOp::min));
}

}  // namespace tandem
