// CUDA impls of the layout primitives: broadcast_in_dim, reshape, transpose, slice,
// dynamic_slice, dynamic_update_slice, concatenate, iota. The strides are the CPU impls'
// (engine/prims/structure.cc) and the copy is structure_kernels.cu's one strided kernel;
// dynamic start indices are read and clamped on the device, never copied to the host.
#include "engine/core/error.h"
#include "engine/core/check_cuda.h"
#include "engine/cuda/cuda_prims.h"
#include "engine/cuda/structure_kernels.h"

namespace tandem {
namespace {
using namespace cuda_impl;

void check_rank(const char* op, size_t rank) {
  if (rank > size_t(kMaxLayoutRank))
    throw_unsupported(cat(op, " on CUDA supports rank <= ", kMaxLayoutRank, ", got ", rank),
                      "reshape to merge axes first");
}

StridedLayout layout(const char* op, const Shape& shape, const Shape& src_st, int64_t src_base,
                     const Shape& dst_st, int64_t dst_base) {
  check_rank(op, shape.size());
  StridedLayout l;
  l.rank = int(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    l.shape[d] = shape[d];
    l.src_strides[d] = src_st[d];
    l.dst_strides[d] = dst_st[d];
  }
  l.src_base = src_base;
  l.dst_base = dst_base;
  return l;
}

// Copies src (read by src_st from src_base) into a new row-major tensor of `shape`.
Tensor gather(const char* op, const Tensor& src, const Shape& shape, const Shape& src_st,
              int64_t src_base, Device d, const DeviceStarts& starts = {}) {
  Tensor out = Tensor::empty(shape, src.dtype(), d);
  strided_copy(src.raw(), out.raw(), layout(op, shape, src_st, src_base, row_major_strides(shape), 0),
               dtype_size(src.dtype()), starts);
  return out;
}

std::vector<Tensor> broadcast_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  Shape shape = checked_out_types("broadcast_in_dim", in, p)[0].shape;
  auto dims = p.get_ints("broadcast_dimensions");
  Shape in_st = row_major_strides(in[0].shape()), src_st(shape.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i)
    if (in[0].shape()[i] != 1) src_st[size_t(dims[i])] = in_st[i];
  return {gather("broadcast_in_dim", in[0], shape, src_st, 0, current_device(ctx))};
}

std::vector<Tensor> reshape_impl(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  return {in[0].view(checked_out_types("reshape", in, p)[0].shape)};  // free, as on the CPU
}

std::vector<Tensor> transpose_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  Shape shape = checked_out_types("transpose", in, p)[0].shape;
  Shape in_st = row_major_strides(in[0].shape()), src_st;
  for (int64_t a : p.get_ints("permutation")) src_st.push_back(in_st[size_t(a)]);
  return {gather("transpose", in[0], shape, src_st, 0, current_device(ctx))};
}

std::vector<Tensor> slice_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  Shape shape = checked_out_types("slice", in, p)[0].shape;
  auto start = p.get_ints("start_indices");
  auto strides = p.has("strides") ? p.get_ints("strides") : std::vector<int64_t>(start.size(), 1);
  Shape in_st = row_major_strides(in[0].shape()), src_st;
  int64_t base = 0;
  for (size_t i = 0; i < start.size(); ++i) {
    base += start[i] * in_st[i];
    src_st.push_back(in_st[i] * strides[i]);
  }
  return {gather("slice", in[0], shape, src_st, base, current_device(ctx))};
}

// Start indices in[first..] (i32 scalars on the device) for a window of `window` in `x`.
DeviceStarts device_starts(const std::vector<Tensor>& in, size_t first, const Shape& x,
                           const Shape& window, bool on_dst) {
  check_rank("dynamic (update) slice", x.size());
  DeviceStarts s;
  s.rank = int(x.size());
  Shape st = row_major_strides(x);
  for (size_t d = 0; d < x.size(); ++d) {
    s.start[d] = in[first + d].data<int32_t>();
    s.limit[d] = x[d] - window[d];
    s.stride[d] = st[d];
  }
  s.on_dst = on_dst;
  return s;
}

std::vector<Tensor> dynamic_slice_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  Shape sizes = checked_out_types("dynamic_slice", in, p)[0].shape;
  DeviceStarts s = device_starts(in, 1, in[0].shape(), sizes, false);
  return {gather("dynamic_slice", in[0], sizes, row_major_strides(in[0].shape()), 0, current_device(ctx), s)};
}

std::vector<Tensor> dus_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  checked_out_types("dynamic_update_slice", in, p);
  const Tensor &x = in[0], &u = in[1];
  Tensor out = Tensor::empty(x.shape(), x.dtype(), current_device(ctx));
  if (x.nbytes() > 0) CUDA_CHECK(cudaMemcpyAsync(out.raw(), x.raw(), x.nbytes(), cudaMemcpyDeviceToDevice, 0));
  DeviceStarts s = device_starts(in, 2, x.shape(), u.shape(), true);
  strided_copy(u.raw(), out.raw(),
               layout("dynamic_update_slice", u.shape(), row_major_strides(u.shape()), 0,
                      row_major_strides(x.shape()), 0),
               dtype_size(x.dtype()), s);
  return {out};
}

std::vector<Tensor> concat_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  Shape shape = checked_out_types("concatenate", in, p)[0].shape;
  int axis = normalize_axis(p.get_int("dimension"), in[0].rank(), "concatenate");
  Tensor out = Tensor::empty(shape, in[0].dtype(), current_device(ctx));
  Shape out_st = row_major_strides(shape);
  int64_t offset = 0;
  for (const Tensor& x : in) {
    strided_copy(x.raw(), out.raw(),
                 layout("concatenate", x.shape(), row_major_strides(x.shape()), 0, out_st,
                        offset * out_st[size_t(axis)]),
                 dtype_size(x.dtype()));
    offset += x.shape()[size_t(axis)];
  }
  return {out};
}

std::vector<Tensor> iota_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  AType t = checked_out_types("iota", in, p)[0];
  size_t dim = size_t(normalize_axis(p.get_int("dimension"), t.rank(), "iota"));
  Tensor out = Tensor::empty(t.shape, t.dtype, current_device(ctx));
  cuda_impl::iota(t.dtype, out.raw(), out.numel(), row_major_strides(t.shape)[dim], t.shape[dim]);
  return {out};
}

}  // namespace

void register_structure_cuda_impls() {
  attach_cuda_impl("broadcast_in_dim", broadcast_impl);
  attach_cuda_impl("reshape", reshape_impl);
  attach_cuda_impl("transpose", transpose_impl);
  attach_cuda_impl("slice", slice_impl);
  attach_cuda_impl("dynamic_slice", dynamic_slice_impl);
  attach_cuda_impl("dynamic_update_slice", dus_impl);
  attach_cuda_impl("concatenate", concat_impl);
  attach_cuda_impl("iota", iota_impl);
}

}  // namespace tandem
