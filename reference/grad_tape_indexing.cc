// The tape's gather, scatter_add and sort (grad_tape.h): each records the reference op and
// its derivative as plain loops over the same index maps (gather.h, sort.h).
#include <memory>

#include "reference/grad_tape.h"
#include "reference/sort.h"

namespace tandem::ref {
namespace {
Array zeros_f64(const std::vector<int64_t>& shape) { return full(shape, DType::f64, 0); }
Array as_f64(Array a) {
  a.dtype = DType::f64;
  return a;
}
}  // namespace

Tape::Id Tape::gather(Id x, const Array& indices, const GatherDims& d, std::vector<int64_t> slice_sizes,
                      IndexMode mode, double fill) {
  Array y = ref::gather(value(x), indices, d, slice_sizes, mode, fill);
  const std::vector<int64_t> from = value(x).shape;
  const ScatterDims s{d.offset_dims, d.collapsed_slice_dims, d.start_index_map, d.operand_batching_dims,
                      d.start_indices_batching_dims};
  return push(std::move(y), {x}, [from, indices, s, mode](const Array& g) {
    return std::vector<Array>{ref::scatter_add(zeros_f64(from), indices, as_f64(g), s, mode)};
  });
}

Tape::Id Tape::scatter_add(Id x, const Array& indices, Id updates, const ScatterDims& d, IndexMode mode) {
  Array y = ref::scatter_add(value(x), indices, value(updates), d, mode);
  const GatherDims gd{d.update_window_dims, d.inserted_window_dims, d.scatter_dims_to_operand_dims,
                      d.operand_batching_dims, d.scatter_indices_batching_dims};
  // The window scatter_add walks: 1 on inserted and batching dims, the updates' extent elsewhere.
  std::vector<int64_t> window;
  size_t j = 0;
  const std::vector<int64_t>& us = value(updates).shape;
  for (int64_t dim = 0; dim < value(x).rank(); ++dim) {
    bool one = false;
    for (int64_t v : d.inserted_window_dims) one = one || v == dim;
    for (int64_t v : d.operand_batching_dims) one = one || v == dim;
    window.push_back(one ? 1 : us[size_t(d.update_window_dims.at(j++))]);
  }
  return push(std::move(y), {x, updates}, [indices, gd, window, mode](const Array& g) {
    return std::vector<Array>{as_f64(g), ref::gather(as_f64(g), indices, gd, window, mode, 0)};
  });
}

Tape::Id Tape::scatter(Id x, const Array& indices, Id updates, const ScatterDims& d, IndexMode mode) {
  Array y = ref::scatter(value(x), indices, value(updates), d, mode);
  // Which update element each operand element keeps (0: none), from a scatter of position + 1.
  Array ids = value(updates);
  for (size_t i = 0; i < ids.data.size(); ++i) ids.data[i] = double(i + 1);
  ids.dtype = DType::f64;
  Array landed = ref::scatter(full(value(x).shape, DType::f64, 0), indices, ids, d, mode);
  return push(std::move(y), {x, updates}, [landed, ushape = value(updates).shape](const Array& g) {
    Array gx = as_f64(g), gu = zeros_f64(ushape);
    for (size_t o = 0; o < landed.data.size(); ++o)
      if (landed.data[o] > 0) {
        gx.data[o] = 0;
        gu.data[size_t(landed.data[o]) - 1] = g.data[o];  // the winner's id is what stayed there
      }
    return std::vector<Array>{gx, gu};
  });
}

std::vector<Tape::Id> Tape::sort(const std::vector<Id>& xs, int64_t dimension, int64_t num_keys) {
  require(num_keys >= 1 && num_keys <= int64_t(xs.size()), "Tape::sort: num_keys outside [1, operands]");
  std::vector<Array> keys;
  for (int64_t k = 0; k < num_keys; ++k) keys.push_back(value(xs[size_t(k)]));
  auto from = std::make_shared<const std::vector<int64_t>>(sort_permutation(keys, dimension));
  std::vector<Id> out;
  for (Id x : xs) {
    Array y = value(x);
    for (size_t i = 0; i < from->size(); ++i) y.data[i] = value(x).data[size_t((*from)[i])];
    out.push_back(push(std::move(y), {x}, [from](const Array& g) {  // each element back where it came from
      Array r = zeros_f64(g.shape);
      for (size_t i = 0; i < from->size(); ++i) r.data[size_t((*from)[i])] = g.data[i];
      return std::vector<Array>{r};
    }));
  }
  return out;
}

}  // namespace tandem::ref
