// Structural reference ops (broadcast_in_dim, reshape, transpose, slice, dynamic_slice,
// dynamic_update_slice, concatenate, iota): index arithmetic over plain row-major loops.
#include "reference/structure.h"

#include <algorithm>
#include <string>

#include "reference/rounding.h"

namespace tandem::ref {
namespace {

std::string list_string(const std::vector<int64_t>& v) { return shape_string(v); }

void require_rank(const char* what, const char* arg, size_t got, int64_t rank) {
  require(static_cast<int64_t>(got) == rank,
          std::string(what) + ": " + arg + " has " + std::to_string(got) + " entries for rank " + std::to_string(rank));
}

}  // namespace

Array broadcast_in_dim(const Array& x, std::vector<int64_t> shape, std::vector<int64_t> broadcast_dimensions) {
  check_array(x, "broadcast_in_dim");
  shape_numel(shape);  // rejects negative sizes
  const auto& bd = broadcast_dimensions;
  require_rank("broadcast_in_dim", "broadcast_dimensions", bd.size(), x.rank());
  const int64_t out_rank = static_cast<int64_t>(shape.size());
  for (size_t i = 0; i < bd.size(); ++i) {
    require(bd[i] >= 0 && bd[i] < out_rank, "broadcast_in_dim: broadcast dimension " + std::to_string(bd[i]) +
                                                " out of range for " + shape_string(shape));
    require(i == 0 || bd[i] > bd[i - 1], "broadcast_in_dim: broadcast_dimensions " +
                                             list_string(bd) + " not strictly increasing");
    require(x.shape[i] == 1 || x.shape[i] == shape[bd[i]],
            "broadcast_in_dim: operand " + shape_string(x.shape) + " cannot broadcast to " +
                shape_string(shape) + " along " + list_string(bd));
  }
  Array out{std::move(shape), x.dtype, {}};
  const int64_t n = out.numel();
  out.data.resize(static_cast<size_t>(n));
  const auto in_strides = row_major_strides(x.shape);
  std::vector<int64_t> idx(out.shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat, next_index(idx, out.shape)) {
    int64_t src = 0;
    for (size_t i = 0; i < bd.size(); ++i)
      if (x.shape[i] != 1) src += idx[bd[i]] * in_strides[i];
    out.data[flat] = x.data[src];
  }
  return out;
}

Array reshape(const Array& x, std::vector<int64_t> new_sizes) {
  check_array(x, "reshape");
  require(shape_numel(new_sizes) == x.numel(),
          "reshape: cannot reshape " + shape_string(x.shape) + " to " + shape_string(new_sizes));
  return Array{std::move(new_sizes), x.dtype, x.data};
}

Array transpose(const Array& x, std::vector<int64_t> permutation) {
  check_array(x, "transpose");
  const auto& perm = permutation;
  require_rank("transpose", "permutation", perm.size(), x.rank());
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    require(p >= 0 && p < x.rank() && !seen[p],
            "transpose: " + list_string(perm) + " is not a permutation of the axes");
    seen[p] = true;
  }
  Array out{std::vector<int64_t>(perm.size()), x.dtype, std::vector<double>(x.data.size())};
  for (size_t i = 0; i < perm.size(); ++i) out.shape[i] = x.shape[perm[i]];
  const auto in_strides = row_major_strides(x.shape);
  std::vector<int64_t> idx(perm.size(), 0);
  for (int64_t flat = 0, n = out.numel(); flat < n; ++flat, next_index(idx, out.shape)) {
    int64_t src = 0;
    for (size_t i = 0; i < perm.size(); ++i) src += idx[i] * in_strides[perm[i]];
    out.data[flat] = x.data[src];
  }
  return out;
}

Array slice(const Array& x, std::vector<int64_t> start, std::vector<int64_t> limit, std::vector<int64_t> strides) {
  check_array(x, "slice");
  if (strides.empty()) strides.assign(x.shape.size(), 1);
  require_rank("slice", "start", start.size(), x.rank());
  require_rank("slice", "limit", limit.size(), x.rank());
  require_rank("slice", "strides", strides.size(), x.rank());
  Array out{std::vector<int64_t>(x.shape.size()), x.dtype, {}};
  for (size_t d = 0; d < x.shape.size(); ++d) {
    require(0 <= start[d] && start[d] <= limit[d] && limit[d] <= x.shape[d] && strides[d] >= 1,
            "slice: start " + list_string(start) + " limit " + list_string(limit) + " strides " +
                list_string(strides) + " invalid for " + shape_string(x.shape));
    out.shape[d] = (limit[d] - start[d] + strides[d] - 1) / strides[d];
  }
  const int64_t n = out.numel();
  out.data.resize(static_cast<size_t>(n));
  const auto in_strides = row_major_strides(x.shape);
  std::vector<int64_t> idx(out.shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat, next_index(idx, out.shape)) {
    int64_t src = 0;
    for (size_t d = 0; d < idx.size(); ++d) src += (start[d] + idx[d] * strides[d]) * in_strides[d];
    out.data[flat] = x.data[src];
  }
  return out;
}

Array dynamic_slice(const Array& x, std::vector<int64_t> starts, std::vector<int64_t> sizes) {
  check_array(x, "dynamic_slice");
  require_rank("dynamic_slice", "starts", starts.size(), x.rank());
  require_rank("dynamic_slice", "sizes", sizes.size(), x.rank());
  std::vector<int64_t> limit(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    require(sizes[d] >= 0 && sizes[d] <= x.shape[d],
            "dynamic_slice: sizes " + list_string(sizes) + " exceed " + shape_string(x.shape));
    starts[d] = std::clamp<int64_t>(starts[d], 0, x.shape[d] - sizes[d]);
    limit[d] = starts[d] + sizes[d];
  }
  return slice(x, starts, limit, {});
}

Array dynamic_update_slice(const Array& x, const Array& update, std::vector<int64_t> starts) {
  check_array(x, "dynamic_update_slice");
  check_array(update, "dynamic_update_slice");
  require(update.dtype == x.dtype, "dynamic_update_slice: update dtype " + std::string(dtype_name(update.dtype)) +
                                       " differs from " + std::string(dtype_name(x.dtype)));
  require_rank("dynamic_update_slice", "update shape", update.shape.size(), x.rank());
  require_rank("dynamic_update_slice", "starts", starts.size(), x.rank());
  for (size_t d = 0; d < starts.size(); ++d) {
    require(update.shape[d] <= x.shape[d],
            "dynamic_update_slice: update " + shape_string(update.shape) + " exceeds " + shape_string(x.shape));
    starts[d] = std::clamp<int64_t>(starts[d], 0, x.shape[d] - update.shape[d]);
  }
  Array out = x;
  const auto strides = row_major_strides(x.shape);
  std::vector<int64_t> idx(update.shape.size(), 0);
  for (int64_t flat = 0; flat < update.numel(); ++flat, next_index(idx, update.shape)) {
    int64_t dst = 0;
    for (size_t d = 0; d < idx.size(); ++d) dst += (starts[d] + idx[d]) * strides[d];
    out.data[dst] = update.data[flat];
  }
  return out;
}

Array concatenate(const std::vector<Array>& xs, int64_t dimension) {
  require(!xs.empty(), "concatenate: needs at least one operand");
  for (const Array& x : xs) check_array(x, "concatenate");
  const Array& first = xs[0];
  require(dimension >= 0 && dimension < first.rank(), "concatenate: dimension " + std::to_string(dimension) +
                                                          " out of range for rank " + std::to_string(first.rank()));
  std::vector<int64_t> shape = first.shape;
  shape[dimension] = 0;
  for (const Array& x : xs) {
    bool same = x.dtype == first.dtype && x.rank() == first.rank();
    for (int64_t d = 0; same && d < x.rank(); ++d) same = d == dimension || x.shape[d] == first.shape[d];
    require(same, "concatenate: operand " + std::string(dtype_name(x.dtype)) + shape_string(x.shape) +
                      " does not match " + std::string(dtype_name(first.dtype)) + shape_string(first.shape) +
                      " outside dimension " + std::to_string(dimension));
    shape[dimension] += x.shape[dimension];
  }
  // Row-major: the output is `outer` blocks, each the operands' slabs one after another.
  int64_t outer = 1;
  for (int64_t d = 0; d < dimension; ++d) outer *= shape[d];
  Array out{std::move(shape), first.dtype, {}};
  out.data.reserve(static_cast<size_t>(out.numel()));
  for (int64_t o = 0; o < outer; ++o)
    for (const Array& x : xs) {
      const int64_t slab = outer == 0 ? 0 : x.numel() / outer;
      out.data.insert(out.data.end(), x.data.begin() + o * slab, x.data.begin() + (o + 1) * slab);
    }
  return out;
}

Array iota(DType t, std::vector<int64_t> shape, int64_t dimension) {
  require(t != DType::pred, "iota: dtype pred is not supported");
  require(dimension >= 0 && dimension < static_cast<int64_t>(shape.size()),
          "iota: dimension " + std::to_string(dimension) + " out of range for " + shape_string(shape));
  Array out{std::move(shape), t, {}};
  const int64_t n = out.numel();
  out.data.resize(static_cast<size_t>(n));
  std::vector<int64_t> idx(out.shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat, next_index(idx, out.shape))
    out.data[flat] = round_to(t, static_cast<double>(idx[dimension]));
  return out;
}

}  // namespace tandem::ref
