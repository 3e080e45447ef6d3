// Reference sort (sort.h): each line along the dimension gathered into a list of positions,
// std::stable_sort'ed by the keys under JAX's order, written back.
#include "reference/sort.h"

#include <algorithm>
#include <cmath>

namespace tandem::ref {
namespace {
// a before b in JAX's order: NaNs last and equal to each other; -0.0 == 0.0 as doubles are.
bool less(double a, double b) { return !std::isnan(a) && (std::isnan(b) || a < b); }
}  // namespace

std::vector<int64_t> sort_permutation(const std::vector<Array>& keys, int64_t dimension) {
  require(!keys.empty(), "sort: no keys");
  const std::vector<int64_t>& shape = keys[0].shape;
  for (const Array& k : keys) require(k.shape == shape, "sort: operands differ in shape");
  require(dimension >= 0 && dimension < int64_t(shape.size()), "sort: dimension outside the rank");
  const std::vector<int64_t> st = row_major_strides(shape);
  const int64_t n = shape[size_t(dimension)], step = st[size_t(dimension)];
  std::vector<int64_t> from(size_t(shape_numel(shape)));
  std::vector<int64_t> idx(shape.size(), 0), line(static_cast<size_t>(n));
  for (int64_t e = 0; e < shape_numel(shape); ++e, next_index(idx, shape)) {
    if (idx[size_t(dimension)] != 0) continue;  // each line once, from its first element
    const int64_t first = flat_offset(idx, st);
    for (int64_t j = 0; j < n; ++j) line[size_t(j)] = first + j * step;
    std::stable_sort(line.begin(), line.end(), [&keys](int64_t a, int64_t b) {
      for (const Array& k : keys) {
        if (less(k.data[size_t(a)], k.data[size_t(b)])) return true;
        if (less(k.data[size_t(b)], k.data[size_t(a)])) return false;
      }
      return false;
    });
    for (int64_t j = 0; j < n; ++j) from[size_t(first + j * step)] = line[size_t(j)];
  }
  return from;
}

std::vector<Array> sort(const std::vector<Array>& operands, int64_t dimension, int64_t num_keys) {
  require(num_keys >= 1 && num_keys <= int64_t(operands.size()), "sort: num_keys outside [1, operands]");
  std::vector<Array> keys(operands.begin(), operands.begin() + num_keys);
  const std::vector<int64_t> from = sort_permutation(keys, dimension);
  std::vector<Array> out;
  for (const Array& x : operands) {
    Array y = x;
    for (size_t i = 0; i < from.size(); ++i) y.data[i] = x.data[size_t(from[i])];
    out.push_back(std::move(y));
  }
  return out;
}

}  // namespace tandem::ref
