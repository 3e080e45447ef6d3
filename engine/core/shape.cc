// Shape helpers.
#include "engine/core/shape.h"

#include "engine/core/error.h"

namespace tandem {

std::string shape_str(const Shape& s) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += ',';
    r += std::to_string(s[i]);
  }
  return r;
}

Shape row_major_strides(const Shape& s) {
  Shape st(s.size(), 1);
  for (int i = int(s.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

std::string AType::str() const {
  return std::string(dtype_name(dtype)) + "[" + shape_str(shape) + "]";
}

int normalize_axis(int64_t axis, int rank, const char* what) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    throw_bad_input(cat(what, ": axis ", axis, " is out of range for rank ", rank),
                    cat("axes lie in [", -rank, ", ", rank - 1, "]"));
  return int(a);
}

}  // namespace tandem
