// gather, scatter_add and scatter (gather_scatter.h): JAX's lax.gather, lax.scatter_add and
// lax.scatter with XLA's semantics. All walk one IndexMap (gather_plan.h): gather copies
// operand[map(i)] to out[i] (or the fill value), scatter_add adds updates[i] into
// operand[map(i)] in row-major order of the updates (or drops it), so the sums are sequential
// and reproducible. scatter writes updates[i] there in the same order, so where indices repeat
// the last update in row-major order wins (XLA leaves that order unspecified; this one is
// deterministic and the CUDA kernels keep it).
#include "engine/prims/gather_scatter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/core/error.h"
#include "engine/prims/primitive_of.h"

namespace tandem {
namespace {

std::vector<int64_t> ints_or_empty(const Params& p, const char* key) {
  return p.has(key) ? p.get_ints(key) : std::vector<int64_t>{};
}
bool contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

void require(bool ok, const char* op, const std::string& what, const char* hint = "") {
  if (!ok) throw_bad_input(cat(op, ": ", what), *hint ? hint : "as JAX's GatherDimensionNumbers / ScatterDimensionNumbers require");
}

void check_sorted_in(const std::vector<int64_t>& v, int64_t rank, const char* op, const char* name) {
  for (size_t i = 0; i < v.size(); ++i)
    require(v[i] >= 0 && v[i] < rank && (i == 0 || v[i] > v[i - 1]), op,
            cat(name, " must be strictly increasing dims in [0, ", rank, "), got [", shape_str(v), "]"));
}

// What gather and scatter_add share: the operand dims the window walks (the rest are
// collapsed / inserted or batching), checked, and the map's fields that follow.
struct Common {
  const char* op;
  const AType &operand, &indices;
  Shape window_space;                        // gather's output / scatter's updates
  std::vector<int64_t> window_dims;          // window-space dims that walk the operand
  std::vector<int64_t> collapsed, start_index_map, obd, ibd;
  Shape slice;                               // per operand dim
  bool clamp;
};

IndexMap build_map(const Common& c) {
  const int r = c.operand.rank(), ir = c.indices.rank();
  require(c.indices.dtype == DType::i32, c.op, cat("indices must be i32, got ", c.indices.str()));
  require(ir >= 1, c.op, "indices need a last dim holding the index vector", "reshape scalar indices to [..., 1]");
  require(r <= kMaxGatherRank && ir <= kMaxGatherRank && int(c.window_space.size()) <= kMaxGatherRank, c.op,
          cat("ranks above ", kMaxGatherRank, " are not supported"));
  require(c.indices.shape[size_t(ir - 1)] == int64_t(c.start_index_map.size()), c.op,
          cat("the index vector (last dim of ", c.indices.str(), ") must have one entry per start_index_map dim (",
              c.start_index_map.size(), ")"));
  check_sorted_in(c.collapsed, r, c.op, "collapsed / inserted window dims");
  check_sorted_in(c.obd, r, c.op, "operand_batching_dims");
  require(c.ibd.size() == c.obd.size(), c.op, "operand and indices batching dims differ in number");
  for (size_t i = 0; i < c.ibd.size(); ++i) {
    require(c.ibd[i] >= 0 && c.ibd[i] < ir - 1 && std::count(c.ibd.begin(), c.ibd.end(), c.ibd[i]) == 1, c.op,
            cat("indices batching dim ", c.ibd[i], " must be a distinct dim of the indices other than the last"));
    require(c.indices.shape[size_t(c.ibd[i])] == c.operand.shape[size_t(c.obd[i])], c.op,
            cat("batching dims of sizes ", c.operand.shape[size_t(c.obd[i])], " (operand) and ",
                c.indices.shape[size_t(c.ibd[i])], " (indices) differ"));
    require(!contains(c.collapsed, c.obd[i]), c.op, cat("dim ", c.obd[i], " is both collapsed and batching"));
  }
  for (int64_t d : c.start_index_map)
    require(d >= 0 && d < r && !contains(c.obd, d) && std::count(c.start_index_map.begin(), c.start_index_map.end(), d) == 1,
            c.op, cat("start_index_map [", shape_str(c.start_index_map), "] must list distinct non-batching operand dims"));
  require(c.window_dims.size() + c.collapsed.size() + c.obd.size() == size_t(r), c.op,
          cat("window dims (", c.window_dims.size(), ") + collapsed (", c.collapsed.size(), ") + batching (",
              c.obd.size(), ") must equal the operand rank ", r));
  for (int d = 0; d < r; ++d)
    require(c.slice[size_t(d)] >= 0 && c.slice[size_t(d)] <= c.operand.shape[size_t(d)], c.op,
            cat("window size ", c.slice[size_t(d)], " of dim ", d, " exceeds ", c.operand.str()));
  for (int64_t d : c.collapsed) require(c.slice[size_t(d)] <= 1, c.op, cat("collapsed dim ", d, " has window size above 1"));
  for (int64_t d : c.obd) require(c.slice[size_t(d)] == 1, c.op, cat("batching dim ", d, " needs window size 1"));
  IndexMap m;
  m.operand_rank = r;
  m.indices_rank = ir;
  m.window_rank = int(c.window_space.size());
  Shape ost = row_major_strides(c.operand.shape), ist = row_major_strides(c.indices.shape);
  for (int d = 0; d < r; ++d) {
    m.operand_shape[d] = c.operand.shape[size_t(d)];
    m.operand_strides[d] = ost[size_t(d)];
    m.slice[d] = c.slice[size_t(d)];
  }
  for (int d = 0; d < ir; ++d) m.index_strides[d] = ist[size_t(d)];
  std::vector<int64_t> walked;  // operand dims the window walks, in order
  for (int d = 0; d < r; ++d)
    if (!contains(c.collapsed, d) && !contains(c.obd, d)) walked.push_back(d);
  int w = 0, b = 0;
  for (int d = 0; d < m.window_rank; ++d) {
    m.window_shape[d] = c.window_space[size_t(d)];
    bool walks = contains(c.window_dims, d);
    m.walks[d] = walks ? int(walked[size_t(w++)]) : -1;
    m.batch_pos[d] = walks ? -1 : b++;
  }
  m.num_index = int(c.start_index_map.size());
  for (int k = 0; k < m.num_index; ++k) m.start_index_map[k] = int(c.start_index_map[size_t(k)]);
  m.num_batching = int(c.obd.size());
  for (int i = 0; i < m.num_batching; ++i) {
    m.operand_batching[i] = int(c.obd[size_t(i)]);
    m.indices_batching[i] = int(c.ibd[size_t(i)]);
  }
  m.clamp = c.clamp;
  return m;
}

// gather's output shape: batch dims (the indices' dims but the last) with the window's
// walked extents at offset_dims.
Shape gather_out_shape(const AType& operand, const AType& indices, const GatherDims& d, const Shape& slice) {
  const char* op = "gather";
  require(int(slice.size()) == operand.rank(), op, cat("slice_sizes has ", slice.size(), " entries for ", operand.str()));
  require(indices.rank() >= 1, op, "indices need a last dim holding the index vector", "reshape scalar indices to [..., 1]");
  const int64_t out_rank = int64_t(d.offset_dims.size()) + indices.rank() - 1;
  check_sorted_in(d.offset_dims, out_rank, op, "offset_dims");
  Shape walked;
  for (int k = 0; k < operand.rank(); ++k)
    if (!contains(d.collapsed_slice_dims, k) && !contains(d.operand_batching_dims, k)) walked.push_back(slice[size_t(k)]);
  require(walked.size() == d.offset_dims.size(), op,
          cat(d.offset_dims.size(), " offset_dims for ", walked.size(), " operand dims that are neither collapsed nor batching"));
  Shape out;
  size_t w = 0, b = 0;
  for (int64_t k = 0; k < out_rank; ++k) out.push_back(contains(d.offset_dims, k) ? walked[w++] : indices.shape[b++]);
  return out;
}

std::vector<AType> gather_shape(const std::vector<AType>& in, const Params& p) {
  if (in.size() != 2) throw_bad_input(cat("gather takes an operand and indices, got ", in.size(), " operands"));
  gather_index_map(in[0], in[1], p);
  index_mode(p, "gather");
  return {AType{gather_out_shape(in[0], in[1], gather_dims_of(p), p.get_ints("slice_sizes")), in[0].dtype}};
}

std::vector<AType> scatter_shape_of(const char* op, const std::vector<AType>& in, const Params& p) {
  if (in.size() != 3) throw_bad_input(cat(op, " takes an operand, indices and updates, got ", in.size(), " operands"));
  require(in[2].dtype == in[0].dtype, op, cat("updates ", in[2].str(), " do not match the operand ", in[0].str()));
  scatter_index_map(in[0], in[1], in[2], p);
  return {in[0]};
}
std::vector<AType> scatter_shape(const std::vector<AType>& in, const Params& p) {
  return scatter_shape_of("scatter_add", in, p);
}
std::vector<AType> scatter_set_shape(const std::vector<AType>& in, const Params& p) {
  return scatter_shape_of("scatter", in, p);
}

std::vector<Tensor> gather_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  IndexMap m = gather_index_map(in[0].type(), in[1].type(), p);
  Shape shape = gather_shape({in[0].type(), in[1].type()}, p)[0].shape;
  Tensor out = Tensor::empty(shape, in[0].dtype());
  const size_t elem = size_t(dtype_size(out.dtype()));
  Tensor fill = Tensor::from_f64({gather_fill_value(p, out.dtype())}, {}, out.dtype());
  const auto* src = static_cast<const char*>(in[0].raw());
  const auto* idx = in[1].data<int32_t>();
  auto* dst = static_cast<char*>(out.raw());
  for (int64_t i = 0, n = out.numel(); i < n; ++i) {
    int64_t o = operand_offset(m, idx, i);
    std::memcpy(dst + i * int64_t(elem), o < 0 ? fill.raw() : src + o * int64_t(elem), elem);
  }
  return {out};
}

template <class T>
void scatter_add_as(const Tensor& upd, const int32_t* idx, const IndexMap& m, Tensor& out) {
  const T* u = upd.data<T>();
  T* o = out.data<T>();
  for (int64_t i = 0, n = upd.numel(); i < n; ++i)
    if (int64_t k = operand_offset(m, idx, i); k >= 0) o[k] = T(o[k] + u[i]);
}

std::vector<Tensor> scatter_add_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  IndexMap m = scatter_index_map(in[0].type(), in[1].type(), in[2].type(), p);
  const Tensor& x = in[0];
  Tensor out = Tensor::empty(x.shape(), x.dtype());
  std::memcpy(out.raw(), x.raw(), x.nbytes());
  const int32_t* idx = in[1].data<int32_t>();
  switch (x.dtype()) {
    case DType::f64: scatter_add_as<double>(in[2], idx, m, out); break;
    case DType::f32: scatter_add_as<float>(in[2], idx, m, out); break;
    case DType::i32: scatter_add_as<int32_t>(in[2], idx, m, out); break;
    default:  // bf16, f16, bool: each sum rounded to the dtype, as an add of that dtype would
      for (int64_t i = 0, n = in[2].numel(); i < n; ++i)
        if (int64_t k = operand_offset(m, idx, i); k >= 0) {
          double v = load_as_f64(out.raw(), x.dtype(), k) + load_as_f64(in[2].raw(), x.dtype(), i);
          store_from_f64(out.raw(), x.dtype(), k, x.dtype() == DType::pred ? double(v != 0) : v);
        }
  }
  return {out};
}

// scatter: each update element copied over its operand element in row-major order of the
// updates, so a repeated index keeps the last one.
std::vector<Tensor> scatter_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  IndexMap m = scatter_index_map(in[0].type(), in[1].type(), in[2].type(), p);
  const Tensor& x = in[0];
  Tensor out = Tensor::empty(x.shape(), x.dtype());
  std::memcpy(out.raw(), x.raw(), x.nbytes());
  const size_t elem = size_t(dtype_size(x.dtype()));
  const int32_t* idx = in[1].data<int32_t>();
  const auto* u = static_cast<const char*>(in[2].raw());
  auto* o = static_cast<char*>(out.raw());
  for (int64_t i = 0, n = in[2].numel(); i < n; ++i)
    if (int64_t k = operand_offset(m, idx, i); k >= 0) std::memcpy(o + k * int64_t(elem), u + i * int64_t(elem), elem);
  return {out};
}

void add(const char* name, std::vector<std::string> params, ShapeRule shape, Impl cpu) {
  register_primitive(primitive_of(name, kStructural, std::move(params), std::move(shape), std::move(cpu)));
}
}  // namespace

GatherDims gather_dims_of(const Params& p) {
  return GatherDims{p.get_ints("offset_dims"), p.get_ints("collapsed_slice_dims"), p.get_ints("start_index_map"),
                    ints_or_empty(p, "operand_batching_dims"), ints_or_empty(p, "start_indices_batching_dims")};
}

ScatterDims scatter_dims_of(const Params& p) {
  return ScatterDims{p.get_ints("update_window_dims"), p.get_ints("inserted_window_dims"),
                     p.get_ints("scatter_dims_to_operand_dims"), ints_or_empty(p, "operand_batching_dims"),
                     ints_or_empty(p, "scatter_indices_batching_dims")};
}

std::string index_mode(const Params& p, const char* op) {
  std::string m = p.get_string("mode", "PROMISE_IN_BOUNDS");
  if (m != "CLIP" && m != "FILL_OR_DROP" && m != "PROMISE_IN_BOUNDS")
    throw_bad_input(cat(op, ": mode '", m, "' is not supported"),
                    "use CLIP, FILL_OR_DROP or PROMISE_IN_BOUNDS (jnp's mode='clip' / 'fill' / 'promise_in_bounds')");
  return m;
}

double gather_fill_value(const Params& p, DType t) {
  if (p.has("fill_value")) {
    const Param& v = p.items().at("fill_value");
    if (const double* d = std::get_if<double>(&v)) return *d;
    if (const int64_t* i = std::get_if<int64_t>(&v)) return double(*i);
    if (const bool* b = std::get_if<bool>(&v)) return double(*b);
    throw_bad_input("gather: fill_value must be a number", "give a float or an integer");
  }
  if (is_floating(t)) return std::numeric_limits<double>::quiet_NaN();
  if (t == DType::i32) return double(std::numeric_limits<int32_t>::min());
  return 1.0;  // bool: True
}

Shape scatter_window(const AType& operand, const AType& updates, const ScatterDims& d) {
  Shape w;
  size_t k = 0;
  for (int i = 0; i < operand.rank(); ++i) {
    bool one = contains(d.inserted_window_dims, i) || contains(d.operand_batching_dims, i);
    if (!one && k >= d.update_window_dims.size())
      throw_bad_input(cat("scatter_add: too few update_window_dims for ", operand.str()),
                      "give one update window dim per operand dim that is neither inserted nor batching");
    int64_t uw = one ? 0 : d.update_window_dims[k++];
    if (!one && (uw < 0 || uw >= updates.rank()))
      throw_bad_input(cat("scatter_add: update window dim ", uw, " is outside ", updates.str()));
    w.push_back(one ? 1 : updates.shape[size_t(uw)]);
  }
  return w;
}

IndexMap gather_index_map(const AType& operand, const AType& indices, const Params& p) {
  GatherDims d = gather_dims_of(p);
  Shape slice = p.get_ints("slice_sizes");
  Shape out = gather_out_shape(operand, indices, d, slice);
  std::string mode = index_mode(p, "gather");
  return build_map(Common{"gather", operand, indices, out, d.offset_dims, d.collapsed_slice_dims, d.start_index_map,
                          d.operand_batching_dims, d.start_indices_batching_dims, slice, mode != "FILL_OR_DROP"});
}

IndexMap scatter_index_map(const AType& operand, const AType& indices, const AType& updates, const Params& p) {
  const char* op = "scatter_add";
  ScatterDims d = scatter_dims_of(p);
  std::string mode = index_mode(p, op);
  require(indices.rank() >= 1, op, "indices need a last dim holding the index vector", "reshape scalar indices to [..., 1]");
  check_sorted_in(d.update_window_dims, updates.rank(), op, "update_window_dims");
  require(updates.rank() == int64_t(d.update_window_dims.size()) + indices.rank() - 1, op,
          cat("updates ", updates.str(), " need rank ", d.update_window_dims.size(), " + ", indices.rank() - 1));
  Shape slice = scatter_window(operand, updates, d);
  size_t b = 0;
  for (int k = 0; k < updates.rank(); ++k)
    if (!contains(d.update_window_dims, k))
      require(updates.shape[size_t(k)] == indices.shape[b++], op,
              cat("updates ", updates.str(), " do not match the batch dims of indices ", indices.str()));
  return build_map(Common{op, operand, indices, updates.shape, d.update_window_dims, d.inserted_window_dims,
                          d.scatter_dims_to_operand_dims, d.operand_batching_dims, d.scatter_indices_batching_dims,
                          slice, mode == "CLIP"});
}

void register_gather_scatter_primitives() {
  add("gather", {"offset_dims", "collapsed_slice_dims", "start_index_map", "operand_batching_dims",
                 "start_indices_batching_dims", "slice_sizes", "indices_are_sorted", "unique_indices", "mode",
                 "fill_value"},
      gather_shape, gather_cpu);
  add("scatter_add", {"update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
                      "operand_batching_dims", "scatter_indices_batching_dims", "indices_are_sorted",
                      "unique_indices", "mode"},
      scatter_shape, scatter_add_cpu);
  add("scatter", {"update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims", "operand_batching_dims",
                  "scatter_indices_batching_dims", "indices_are_sorted", "unique_indices", "mode"},
      scatter_set_shape, scatter_cpu);
}

}  // namespace tandem
