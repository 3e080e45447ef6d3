// Reference gather / scatter-add (gather.h): for each element of the "window space" (gather's
// output, scatter's updates) the operand index it touches, written out with index vectors.
#include "reference/gather.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "reference/rounding.h"

namespace tandem::ref {
namespace {

bool has(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// One description serves both ops: which window-space dims walk the window, how the index
// vector and the batching dims set the start.
struct Walk {
  std::vector<int64_t> window_dims, collapsed, start_index_map, obd, ibd, slice;
  bool clamp;
};

// The operand index window-space index `w` touches, or nullopt (filled / dropped).
std::optional<std::vector<int64_t>> operand_index(const Array& operand, const Array& indices, const Walk& k,
                                                  const std::vector<int64_t>& w) {
  const size_t r = operand.shape.size();
  std::vector<int64_t> batch;  // the indices' position (without the index vector dim)
  for (size_t d = 0; d < w.size(); ++d)
    if (!has(k.window_dims, int64_t(d))) batch.push_back(w[d]);
  std::vector<int64_t> at = batch, start(r, 0);
  at.push_back(0);
  const std::vector<int64_t> ist = row_major_strides(indices.shape);
  for (size_t j = 0; j < k.start_index_map.size(); ++j) {
    at.back() = int64_t(j);
    const int64_t dim = k.start_index_map[j];
    const int64_t hi = operand.shape[size_t(dim)] - k.slice[size_t(dim)];
    int64_t s = int64_t(indices.data[size_t(flat_offset(at, ist))]);
    if (k.clamp) s = std::min(std::max(s, int64_t(0)), hi);
    else if (s < 0 || s > hi) return std::nullopt;
    start[size_t(dim)] = s;
  }
  for (size_t i = 0; i < k.obd.size(); ++i) start[size_t(k.obd[i])] = batch[size_t(k.ibd[i])];
  size_t j = 0;
  for (size_t dim = 0; dim < r; ++dim)
    if (!has(k.collapsed, int64_t(dim)) && !has(k.obd, int64_t(dim))) start[dim] += w[size_t(k.window_dims[j++])];
  return start;
}
}  // namespace

IndexMode index_mode(const std::string& name) {
  if (name == "CLIP") return IndexMode::clip;
  if (name == "FILL_OR_DROP") return IndexMode::fill_or_drop;
  if (name == "PROMISE_IN_BOUNDS") return IndexMode::promise_in_bounds;
  throw std::invalid_argument("gather/scatter mode '" + name + "' is not CLIP, FILL_OR_DROP or PROMISE_IN_BOUNDS");
}

double default_fill(DType t) {
  if (t == DType::i32) return double(std::numeric_limits<int32_t>::min());
  if (t == DType::pred) return 1;
  return std::numeric_limits<double>::quiet_NaN();
}

Array gather(const Array& operand, const Array& indices, const GatherDims& d, std::vector<int64_t> slice_sizes,
             IndexMode mode, double fill) {
  check_array(operand, "gather operand");
  check_array(indices, "gather indices");
  require(!indices.shape.empty() && slice_sizes.size() == operand.shape.size(),
          "gather: indices need an index-vector dim and slice_sizes one entry per operand dim");
  const size_t out_rank = d.offset_dims.size() + indices.shape.size() - 1;
  std::vector<int64_t> walked_sizes;
  for (size_t dim = 0; dim < operand.shape.size(); ++dim)
    if (!has(d.collapsed_slice_dims, int64_t(dim)) && !has(d.operand_batching_dims, int64_t(dim)))
      walked_sizes.push_back(slice_sizes[dim]);
  require(walked_sizes.size() == d.offset_dims.size(), "gather: offset_dims do not match the walked operand dims");
  std::vector<int64_t> out_shape;
  size_t wi = 0, bi = 0;
  for (size_t o = 0; o < out_rank; ++o)
    out_shape.push_back(has(d.offset_dims, int64_t(o)) ? walked_sizes[wi++] : indices.shape[bi++]);
  Walk k{d.offset_dims, d.collapsed_slice_dims, d.start_index_map, d.operand_batching_dims,
         d.start_indices_batching_dims, slice_sizes, mode != IndexMode::fill_or_drop};
  Array out = full(out_shape, operand.dtype, 0);
  const std::vector<int64_t> ost = row_major_strides(operand.shape);
  std::vector<int64_t> w(out_rank, 0);
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto at = operand_index(operand, indices, k, w);
    out.data[size_t(i)] = at ? operand.data[size_t(flat_offset(*at, ost))] : round_to(operand.dtype, fill);
    next_index(w, out_shape);
  }
  return out;
}

// The walk of a scatter's updates: 1 on inserted and batching dims, the updates' extent elsewhere.
Walk scatter_walk(const Array& operand, const Array& indices, const Array& updates, const ScatterDims& d,
                  IndexMode mode) {
  check_array(operand, "scatter operand");
  check_array(updates, "scatter updates");
  require(!indices.shape.empty(), "scatter: indices need an index-vector dim");
  std::vector<int64_t> slice;
  size_t j = 0;
  for (size_t dim = 0; dim < operand.shape.size(); ++dim) {
    bool one = has(d.inserted_window_dims, int64_t(dim)) || has(d.operand_batching_dims, int64_t(dim));
    require(one || j < d.update_window_dims.size(), "scatter: too few update_window_dims");
    slice.push_back(one ? 1 : updates.shape[size_t(d.update_window_dims[j++])]);
  }
  return Walk{d.update_window_dims, d.inserted_window_dims, d.scatter_dims_to_operand_dims, d.operand_batching_dims,
              d.scatter_indices_batching_dims, slice, mode == IndexMode::clip};
}

Array scatter_add(const Array& operand, const Array& indices, const Array& updates, const ScatterDims& d,
                  IndexMode mode) {
  const Walk k = scatter_walk(operand, indices, updates, d, mode);
  std::vector<double> sum = operand.data;  // f64 sums, rounded once at the end
  const std::vector<int64_t> ost = row_major_strides(operand.shape);
  std::vector<int64_t> w(updates.shape.size(), 0);
  for (int64_t i = 0; i < updates.numel(); ++i) {
    if (auto at = operand_index(operand, indices, k, w)) sum[size_t(flat_offset(*at, ost))] += updates.data[size_t(i)];
    next_index(w, updates.shape);
  }
  if (operand.dtype == DType::pred)
    for (double& v : sum) v = v != 0;
  return make(operand.shape, operand.dtype, sum);
}

Array scatter(const Array& operand, const Array& indices, const Array& updates, const ScatterDims& d, IndexMode mode) {
  const Walk k = scatter_walk(operand, indices, updates, d, mode);
  Array out = operand;
  const std::vector<int64_t> ost = row_major_strides(operand.shape);
  std::vector<int64_t> w(updates.shape.size(), 0);
  for (int64_t i = 0; i < updates.numel(); ++i) {
    if (auto at = operand_index(operand, indices, k, w)) out.data[size_t(flat_offset(*at, ost))] = updates.data[size_t(i)];
    next_index(w, updates.shape);
  }
  return out;
}

}  // namespace tandem::ref
