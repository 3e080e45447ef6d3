// Shapes and the abstract value type (shape + dtype) that IR variables carry.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/dtype.h"

namespace tandem {

using Shape = std::vector<int64_t>;

inline int64_t num_elements(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::string shape_str(const Shape& s);  // "4,8"

// Row-major strides in elements.
Shape row_major_strides(const Shape& s);

struct AType {
  Shape shape;
  DType dtype = DType::f32;
  bool operator==(const AType&) const = default;
  int rank() const { return int(shape.size()); }
  std::string str() const;  // "f32[4,8]"
};

// Normalises a possibly negative axis into [0, rank); bad axes are a bad-input error.
int normalize_axis(int64_t axis, int rank, const char* what);

}  // namespace tandem
