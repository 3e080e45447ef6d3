// Layout primitives (lax semantics): broadcast_in_dim, reshape, transpose, slice,
// dynamic_slice, dynamic_update_slice, concatenate, iota. All CPU impls are strided copies.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "engine/cpu/dispatch.h"
#include "engine/cpu/strided_copy.h"
#include "engine/prims/primitive_of.h"

namespace tandem {
namespace {
using cpu::strided_copy;

void expect_operands(const char* op, const std::vector<AType>& in, size_t n) {
  if (in.size() != n) throw_bad_input(cat(op, " takes ", n, " operand(s), got ", in.size()));
}

// ---- broadcast_in_dim ---------------------------------------------------------------
std::vector<AType> broadcast_shape(const std::vector<AType>& in, const Params& p) {
  expect_operands("broadcast_in_dim", in, 1);
  Shape shape = p.get_ints("shape");
  auto dims = p.get_ints("broadcast_dimensions");
  const AType& x = in[0];
  if (int(dims.size()) != x.rank())
    throw_bad_input(cat("broadcast_in_dim: ", dims.size(), " broadcast_dimensions for operand ",
                        x.str()), "give one output dimension per operand dimension");
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= int64_t(shape.size()) || (i && dims[i] <= dims[i - 1]))
      throw_bad_input(cat("broadcast_in_dim: broadcast_dimensions must be strictly increasing "
                          "and within the output rank ", shape.size()),
                      "as JAX's: non-negative output axes, one per operand axis, in increasing order");
    if (x.shape[i] != 1 && x.shape[i] != shape[dims[i]])
      throw_bad_input(cat("broadcast_in_dim: operand dim ", i, " of size ", x.shape[i],
                          " cannot broadcast to ", shape[dims[i]]), "sizes must match or be 1");
  }
  return {AType{shape, x.dtype}};
}

// Fills n elements of `elem` bytes with one value: the zeros every VJP builds (the transpose
// of a slice is zeros + dynamic_update_slice) are broadcasts of a scalar, and the strided
// copy would spend one memcpy call per element on them.
template <class U>
void fill_as(void* dst, const void* value, int64_t n) {
  U v;
  std::memcpy(&v, value, sizeof(U));
  std::fill_n(static_cast<U*>(dst), n, v);
}
bool fill_scalar(void* dst, const void* value, int64_t n, size_t elem) {
  switch (elem) {
    case 1: fill_as<uint8_t>(dst, value, n); return true;
    case 2: fill_as<uint16_t>(dst, value, n); return true;
    case 4: fill_as<uint32_t>(dst, value, n); return true;
    case 8: fill_as<uint64_t>(dst, value, n); return true;
    default: return false;
  }
}

std::vector<Tensor> broadcast_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  Shape shape = p.get_ints("shape");
  auto dims = p.get_ints("broadcast_dimensions");
  Tensor out = Tensor::empty(shape, in[0].dtype());
  if (in[0].numel() == 1 && fill_scalar(out.raw(), in[0].raw(), out.numel(), dtype_size(out.dtype()))) return {out};
  Shape in_st = row_major_strides(in[0].shape()), src_st(shape.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i)
    if (in[0].shape()[i] != 1) src_st[dims[i]] = in_st[i];
  strided_copy(in[0].raw(), 0, src_st, out.raw(), 0, row_major_strides(shape), shape, dtype_size(out.dtype()));
  return {out};
}

// ---- reshape --------------------------------------------------------------------------
std::vector<AType> reshape_shape(const std::vector<AType>& in, const Params& p) {
  expect_operands("reshape", in, 1);
  Shape s = p.get_ints("new_sizes");
  for (int64_t d : s)
    if (d < 0) throw_bad_input(cat("reshape: negative size in [", shape_str(s), "]"));
  if (num_elements(s) != num_elements(in[0].shape))
    throw_bad_input(cat("reshape: ", in[0].str(), " has ", num_elements(in[0].shape),
                        " elements, new_sizes [", shape_str(s), "] has ", num_elements(s)));
  return {AType{s, in[0].dtype}};
}

std::vector<Tensor> reshape_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  return {in[0].view(p.get_ints("new_sizes"))};
}

// ---- transpose ------------------------------------------------------------------------
std::vector<int64_t> checked_perm(const std::vector<int64_t>& perm, int rank) {
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> want(rank);
  std::iota(want.begin(), want.end(), 0);
  if (sorted != want)
    throw_bad_input(cat("transpose: permutation is not a permutation of 0..", rank - 1),
                    "list every axis exactly once");
  return perm;
}

std::vector<AType> transpose_shape(const std::vector<AType>& in, const Params& p) {
  expect_operands("transpose", in, 1);
  auto perm = checked_perm(p.get_ints("permutation"), in[0].rank());
  Shape s;
  for (int64_t a : perm) s.push_back(in[0].shape[a]);
  return {AType{s, in[0].dtype}};
}

std::vector<Tensor> transpose_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  auto perm = p.get_ints("permutation");
  Shape s, src_st, in_st = row_major_strides(in[0].shape());
  for (int64_t a : perm) { s.push_back(in[0].shape()[a]); src_st.push_back(in_st[a]); }
  Tensor out = Tensor::empty(s, in[0].dtype());
  strided_copy(in[0].raw(), 0, src_st, out.raw(), 0, row_major_strides(s), s, dtype_size(out.dtype()));
  return {out};
}

// ---- slice ----------------------------------------------------------------------------
std::vector<AType> slice_shape(const std::vector<AType>& in, const Params& p) {
  expect_operands("slice", in, 1);
  auto start = p.get_ints("start_indices"), limit = p.get_ints("limit_indices");
  auto strides = p.has("strides") ? p.get_ints("strides") : std::vector<int64_t>(start.size(), 1);
  const AType& x = in[0];
  if (int(start.size()) != x.rank() || limit.size() != start.size() || strides.size() != start.size())
    throw_bad_input(cat("slice: start/limit/strides must each have rank ", x.rank(), " entries"));
  Shape s;
  for (int i = 0; i < x.rank(); ++i) {
    if (start[i] < 0 || limit[i] > x.shape[i] || start[i] > limit[i] || strides[i] < 1)
      throw_bad_input(cat("slice: dim ", i, " start ", start[i], " limit ", limit[i], " stride ",
                          strides[i], " is invalid for size ", x.shape[i]),
                      "need 0 <= start <= limit <= size and stride >= 1");
    s.push_back((limit[i] - start[i] + strides[i] - 1) / strides[i]);
  }
  return {AType{s, x.dtype}};
}

std::vector<Tensor> slice_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  auto start = p.get_ints("start_indices");
  auto strides = p.has("strides") ? p.get_ints("strides") : std::vector<int64_t>(start.size(), 1);
  Shape s = slice_shape({in[0].type()}, p)[0].shape;
  Shape in_st = row_major_strides(in[0].shape()), src_st;
  int64_t base = 0;
  for (int i = 0; i < in[0].rank(); ++i) {
    base += start[i] * in_st[i];
    src_st.push_back(in_st[i] * strides[i]);
  }
  Tensor out = Tensor::empty(s, in[0].dtype());
  strided_copy(in[0].raw(), base, src_st, out.raw(), 0, row_major_strides(s), s, dtype_size(out.dtype()));
  return {out};
}

// ---- dynamic_slice / dynamic_update_slice -----------------------------------------------
void check_index_operands(const char* op, const std::vector<AType>& idx, int rank) {
  if (int(idx.size()) != rank)
    throw_bad_input(cat(op, ": ", idx.size(), " start indices for rank ", rank),
                    "pass one scalar index per operand dimension");
  for (const AType& t : idx)
    if (t.rank() != 0 || t.dtype != DType::i32)
      throw_bad_input(cat(op, ": start indices must be i32 scalars, got ", t.str()));
}

// XLA clamps start indices so the window stays inside the operand.
std::vector<int64_t> clamped_starts(const std::vector<Tensor>& in, size_t first, const Shape& x, const Shape& window) {
  std::vector<int64_t> st;
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t v = int64_t(in[first + i].data<int32_t>()[0]);
    st.push_back(std::clamp<int64_t>(v, 0, x[i] - window[i]));
  }
  return st;
}

std::vector<AType> dynamic_slice_shape(const std::vector<AType>& in, const Params& p) {
  if (in.empty()) throw_bad_input("dynamic_slice needs an operand");
  Shape sizes = p.get_ints("slice_sizes");
  check_index_operands("dynamic_slice", {in.begin() + 1, in.end()}, in[0].rank());
  if (int(sizes.size()) != in[0].rank())
    throw_bad_input(cat("dynamic_slice: slice_sizes has ", sizes.size(), " entries for ", in[0].str()));
  for (int i = 0; i < in[0].rank(); ++i)
    if (sizes[i] < 0 || sizes[i] > in[0].shape[i])
      throw_bad_input(cat("dynamic_slice: slice size ", sizes[i], " exceeds dim ", i, " of ", in[0].str()));
  return {AType{sizes, in[0].dtype}};
}

std::vector<Tensor> dynamic_slice_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  Shape sizes = p.get_ints("slice_sizes");
  auto st = clamped_starts(in, 1, in[0].shape(), sizes);
  Shape in_st = row_major_strides(in[0].shape());
  int64_t base = 0;
  for (size_t i = 0; i < st.size(); ++i) base += st[i] * in_st[i];
  Tensor out = Tensor::empty(sizes, in[0].dtype());
  strided_copy(in[0].raw(), base, in_st, out.raw(), 0, row_major_strides(sizes), sizes, dtype_size(out.dtype()));
  return {out};
}

std::vector<AType> dus_shape(const std::vector<AType>& in, const Params&) {
  if (in.size() < 2) throw_bad_input("dynamic_update_slice needs an operand and an update");
  const AType &x = in[0], &u = in[1];
  check_index_operands("dynamic_update_slice", {in.begin() + 2, in.end()}, x.rank());
  if (u.dtype != x.dtype || u.rank() != x.rank())
    throw_bad_input(cat("dynamic_update_slice: update ", u.str(), " does not match operand ", x.str()));
  for (int i = 0; i < x.rank(); ++i)
    if (u.shape[i] > x.shape[i])
      throw_bad_input(cat("dynamic_update_slice: update ", u.str(), " larger than operand ", x.str()));
  return {x};
}

std::vector<Tensor> dus_cpu(const std::vector<Tensor>& in, const Params&, EvalContext&) {
  const Tensor &x = in[0], &u = in[1];
  Tensor out = Tensor::empty(x.shape(), x.dtype());
  std::memcpy(out.raw(), x.raw(), x.nbytes());
  auto st = clamped_starts(in, 2, x.shape(), u.shape());
  Shape x_st = row_major_strides(x.shape());
  int64_t base = 0;
  for (size_t i = 0; i < st.size(); ++i) base += st[i] * x_st[i];
  strided_copy(u.raw(), 0, row_major_strides(u.shape()), out.raw(), base, x_st, u.shape(), dtype_size(x.dtype()));
  return {out};
}

// ---- concatenate ------------------------------------------------------------------------
std::vector<AType> concat_shape(const std::vector<AType>& in, const Params& p) {
  if (in.empty()) throw_bad_input("concatenate needs at least one operand");
  int axis = normalize_axis(p.get_int("dimension"), in[0].rank(), "concatenate");
  Shape s = in[0].shape;
  s[axis] = 0;
  for (const AType& t : in) {
    bool ok = t.dtype == in[0].dtype && t.rank() == in[0].rank();
    for (int i = 0; ok && i < t.rank(); ++i) ok = i == axis || t.shape[i] == in[0].shape[i];
    if (!ok)
      throw_bad_input(cat("concatenate: ", t.str(), " does not match ", in[0].str(), " outside dimension ", axis));
    s[axis] += t.shape[axis];
  }
  return {AType{s, in[0].dtype}};
}

std::vector<Tensor> concat_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  int axis = normalize_axis(p.get_int("dimension"), in[0].rank(), "concatenate");
  Shape s = concat_shape([&] { std::vector<AType> t; for (auto& x : in) t.push_back(x.type()); return t; }(), p)[0].shape;
  Tensor out = Tensor::empty(s, in[0].dtype());
  Shape out_st = row_major_strides(s);
  int64_t offset = 0;
  for (const Tensor& x : in) {
    strided_copy(x.raw(), 0, row_major_strides(x.shape()), out.raw(), offset * out_st[axis],
                 out_st, x.shape(), dtype_size(x.dtype()));
    offset += x.shape()[axis];
  }
  return {out};
}

// ---- iota -------------------------------------------------------------------------------
std::vector<AType> iota_shape(const std::vector<AType>& in, const Params& p) {
  expect_operands("iota", in, 0);
  Shape s = p.get_ints("shape");
  // JAX's broadcasted_iota refuses a negative dimension ("must be between 0 and len(shape)"),
  // and iota_cpu indexes the strides with it as given.
  if (p.get_int("dimension") < 0)
    throw_bad_input(cat("iota: dimension ", p.get_int("dimension"), " is negative"),
                    "JAX's iota takes a dimension in [0, rank): pass the dimension plus the rank");
  normalize_axis(p.get_int("dimension"), int(s.size()), "iota");
  DType t = p.get_dtype("dtype");
  if (t == DType::pred) throw_bad_input("iota: bool dtype is not allowed");
  return {AType{s, t}};
}

std::vector<Tensor> iota_cpu(const std::vector<Tensor>&, const Params& p, EvalContext&) {
  Shape s = p.get_ints("shape");
  int dim = int(p.get_int("dimension"));
  Tensor out = Tensor::empty(s, p.get_dtype("dtype"));
  Shape st = row_major_strides(s);
  for (int64_t i = 0, n = out.numel(); i < n; ++i)
    store_from_f64(out.raw(), out.dtype(), i, double((i / st[dim]) % s[dim]));
  return {out};
}

void add(const char* name, std::vector<std::string> params, ShapeRule shape, Impl cpu) {
  register_primitive(primitive_of(name, kStructural, std::move(params), std::move(shape), std::move(cpu)));
}
}  // namespace

void register_structure_primitives() {
  add("broadcast_in_dim", {"shape", "broadcast_dimensions"}, broadcast_shape, broadcast_cpu);
  add("reshape", {"new_sizes"}, reshape_shape, reshape_cpu);
  add("transpose", {"permutation"}, transpose_shape, transpose_cpu);
  add("slice", {"start_indices", "limit_indices", "strides"}, slice_shape, slice_cpu);
  add("dynamic_slice", {"slice_sizes"}, dynamic_slice_shape, dynamic_slice_cpu);
  add("dynamic_update_slice", {}, dus_shape, dus_cpu);
  add("concatenate", {"dimension"}, concat_shape, concat_cpu);
  add("iota", {"dtype", "shape", "dimension"}, iota_shape, iota_cpu);
}

}  // namespace tandem
