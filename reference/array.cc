// Array construction and the shape helpers shared by every reference op.
#include "reference/array.h"

#include <stdexcept>
#include <utility>

#include "reference/rounding.h"

namespace tandem::ref {

void require(bool cond, const std::string& message) {
  if (!cond) throw std::invalid_argument(message);
}

int64_t shape_numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) require(false, "negative dimension in shape " + shape_string(shape));  // message built only then: hot
    n *= d;
  }
  return n;
}

int64_t Array::numel() const { return shape_numel(shape); }

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

void next_index(std::vector<int64_t>& index, const std::vector<int64_t>& shape) {
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (++index[d] < shape[d]) return;
    index[d] = 0;
  }
}

int64_t flat_offset(const std::vector<int64_t>& index, const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (size_t d = 0; d < index.size(); ++d) off += index[d] * strides[d];
  return off;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

void check_array(const Array& x, const std::string& what) {
  const int64_t n = x.numel();  // throws on a negative size
  require(static_cast<int64_t>(x.data.size()) == n,
          what + ": array of shape " + shape_string(x.shape) + " holds " +
              std::to_string(x.data.size()) + " values, expected " + std::to_string(n));
}

Array make(std::vector<int64_t> shape, DType t, std::vector<double> values) {
  Array a{std::move(shape), t, std::move(values)};
  check_array(a, "make");
  round_each(t, a.data);
  return a;
}

Array scalar(DType t, double v) { return make({}, t, {v}); }

Array full(std::vector<int64_t> shape, DType t, double v) {
  const int64_t n = shape_numel(shape);
  return make(std::move(shape), t, std::vector<double>(static_cast<size_t>(n), v));
}

}  // namespace tandem::ref
