// CUDA impls of reduce_window_max and reduce_window_sum: the shape rule and the window plan
// are the CPU impls' (engine/prims/reduce_window.h), the kernels window_kernels.cu.
#include "engine/cuda/cuda_prims.h"
#include "engine/cuda/window_kernels.h"
#include "engine/prims/reduce_window.h"

namespace tandem {
namespace {

template <bool kMax>
std::vector<Tensor> reduce_window_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  const char* op = kMax ? "reduce_window_max" : "reduce_window_sum";
  AType t = cuda_impl::checked_out_types(op, in, p)[0];
  const WindowPlan plan = window_plan(in[0].type(), window_dims_of(in[0].type(), p, op));
  Tensor out = Tensor::empty(t.shape, t.dtype, cuda_impl::current_device(ctx));
  cuda_impl::reduce_window(in[0].raw(), out.raw(), plan, t.dtype, kMax, out.numel());
  return {out};
}
}  // namespace

void register_window_cuda_impls() {
  cuda_impl::attach_cuda_impl("reduce_window_max", reduce_window_impl<true>);
  cuda_impl::attach_cuda_impl("reduce_window_sum", reduce_window_impl<false>);
}

}  // namespace tandem
