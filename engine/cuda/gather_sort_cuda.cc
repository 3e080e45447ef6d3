// CUDA impls of gather, scatter_add, scatter and sort: the shape rules and the index map are the CPU
// impls' (engine/prims/gather_scatter.h, sort.cc through the registry), the kernels
// gather_sort_kernels.cu. Indices are read on the device, never copied to the host.
#include "engine/core/check_cuda.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_prims.h"
#include "engine/cuda/gather_sort_kernels.h"
#include "engine/prims/gather_scatter.h"

namespace tandem {
namespace {
using namespace cuda_impl;

std::vector<Tensor> gather_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  AType t = checked_out_types("gather", in, p)[0];
  IndexMap m = gather_index_map(in[0].type(), in[1].type(), p);
  Device d = current_device(ctx);
  Tensor out = Tensor::empty(t.shape, t.dtype, d);
  Tensor fill = Tensor::from_f64({gather_fill_value(p, t.dtype)}, {}, t.dtype).to(d);
  cuda_impl::gather(in[0].raw(), out.raw(), in[1].data<int32_t>(), m, dtype_size(t.dtype), fill.raw(), out.numel());
  return {out};
}

template <bool Set>
std::vector<Tensor> scatter_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  checked_out_types(Set ? "scatter" : "scatter_add", in, p);
  IndexMap m = scatter_index_map(in[0].type(), in[1].type(), in[2].type(), p);
  const Tensor& x = in[0];
  Tensor out = Tensor::empty(x.shape(), x.dtype(), current_device(ctx));
  if (x.nbytes() > 0) CUDA_CHECK(cudaMemcpyAsync(out.raw(), x.raw(), x.nbytes(), cudaMemcpyDeviceToDevice, 0));
  (Set ? cuda_impl::scatter : cuda_impl::scatter_add)(out.raw(), in[2].raw(), in[1].data<int32_t>(), m, x.dtype(),
                                                     in[2].numel());
  return {out};
}

std::vector<Tensor> sort_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  checked_out_types("sort", in, p);
  if (in.size() > size_t(kMaxSortOperands))
    throw_unsupported(cat("sort of ", in.size(), " operands on CUDA (at most ", kMaxSortOperands, ")"),
                      "sort fewer operands together, or run on the CPU");
  const Shape& s = in[0].shape();
  const size_t dim = size_t(p.get_int("dimension"));
  Device d = current_device(ctx);
  std::vector<Tensor> out;
  SortOperands ops;
  ops.count = int(in.size());
  ops.num_keys = int(p.get_int("num_keys", 1));
  for (size_t i = 0; i < in.size(); ++i) {
    out.push_back(Tensor::empty(s, in[i].dtype(), d));
    ops.in[i] = in[i].raw();
    ops.out[i] = out.back().raw();
    ops.dtype[i] = in[i].dtype();
  }
  const int64_t n = s[dim];
  cuda_impl::sort(ops, n == 0 ? 0 : in[0].numel() / n, n, row_major_strides(s)[dim]);
  return out;
}
}  // namespace

void register_gather_sort_cuda_impls() {
  attach_cuda_impl("gather", gather_impl);
  attach_cuda_impl("scatter_add", scatter_impl<false>);
  attach_cuda_impl("scatter", scatter_impl<true>);
  attach_cuda_impl("sort", sort_impl);
}

}  // namespace tandem
