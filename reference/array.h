// The reference's host array: a row-major shape, a dtype, and values kept as f64 that are
// already rounded to the dtype. Plus the few shape helpers every reference op shares.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/dtype.h"

namespace tandem::ref {

struct Array {
  std::vector<int64_t> shape;  // row-major; rank 0 = scalar (one element)
  DType dtype = DType::f32;
  std::vector<double> data;  // numel() values, each exactly representable in dtype
  int64_t numel() const;
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
};

// Builds an Array, rounding each value to t. Throws if values.size() != product(shape).
Array make(std::vector<int64_t> shape, DType t, std::vector<double> values);
// A rank-0 array holding round_to(t, v).
Array scalar(DType t, double v);
// An array of the given shape filled with round_to(t, v).
Array full(std::vector<int64_t> shape, DType t, double v);

// Product of the sizes (1 for rank 0). Throws on a negative size.
int64_t shape_numel(const std::vector<int64_t>& shape);
// Row-major strides in elements: strides[d] = product(shape[d+1:]).
std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape);
// Advances index to the next position of shape in row-major order (last axis fastest);
// wraps to all zeros after the last position.
void next_index(std::vector<int64_t>& index, const std::vector<int64_t>& shape);
// Flat row-major offset of index in an array with the given strides.
int64_t flat_offset(const std::vector<int64_t>& index, const std::vector<int64_t>& strides);
// "[2,3,4]" for error messages.
std::string shape_string(const std::vector<int64_t>& shape);
// Throws std::invalid_argument(what + ": " + message) unless the array is well formed
// (sizes >= 0 and data.size() == numel()).
void check_array(const Array& x, const std::string& what);
// Throws std::invalid_argument(message) when cond is false.
void require(bool cond, const std::string& message);

}  // namespace tandem::ref
