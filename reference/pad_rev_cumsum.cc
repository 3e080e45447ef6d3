// rev, pad and cumsum (pad_rev_cumsum.h): each output element found from its index.
#include "reference/pad_rev_cumsum.h"

#include <string>

#include "reference/rounding.h"

namespace tandem::ref {

Array rev(const Array& x, const std::vector<int64_t>& dimensions) {
  check_array(x, "rev");
  std::vector<bool> flip(x.shape.size(), false);
  for (int64_t d : dimensions) {
    require(d >= 0 && d < x.rank() && !flip[size_t(d)],
            "rev: dimensions " + shape_string(dimensions) + " invalid for " + shape_string(x.shape));
    flip[size_t(d)] = true;
  }
  Array out = x;
  const std::vector<int64_t> st = row_major_strides(x.shape);
  std::vector<int64_t> idx(x.shape.size(), 0), src(x.shape.size());
  for (size_t i = 0; i < out.data.size(); ++i, next_index(idx, x.shape)) {
    for (size_t d = 0; d < idx.size(); ++d) src[d] = flip[d] ? x.shape[d] - 1 - idx[d] : idx[d];
    out.data[i] = x.data[size_t(flat_offset(src, st))];
  }
  return out;
}

Array pad(const Array& x, const Array& padding_value, const std::vector<int64_t>& low,
          const std::vector<int64_t>& high, const std::vector<int64_t>& interior) {
  check_array(x, "pad");
  check_array(padding_value, "pad");
  require(padding_value.shape.empty() && padding_value.dtype == x.dtype,
          "pad: the padding value must be a scalar of the operand's dtype");
  const size_t r = x.shape.size();
  require(low.size() == r && high.size() == r && interior.size() == r, "pad: one (low, high, interior) per dimension");
  std::vector<int64_t> shape(r);
  for (size_t d = 0; d < r; ++d) {
    require(interior[d] >= 0, "pad: interior padding must be >= 0");
    shape[d] = low[d] + high[d] + (x.shape[d] == 0 ? 0 : 1 + (x.shape[d] - 1) * (interior[d] + 1));
    require(shape[d] >= 0, "pad: dimension " + std::to_string(d) + " would end with a negative size");
  }
  Array out = full(shape, x.dtype, padding_value.data[0]);
  const std::vector<int64_t> st = row_major_strides(shape);
  std::vector<int64_t> idx(r, 0), at(r);
  for (size_t i = 0; i < x.data.size(); ++i, next_index(idx, x.shape)) {
    bool inside = true;
    for (size_t d = 0; d < r; ++d) {
      at[d] = low[d] + idx[d] * (interior[d] + 1);
      inside &= at[d] >= 0 && at[d] < shape[d];
    }
    if (inside) out.data[size_t(flat_offset(at, st))] = x.data[i];
  }
  return out;
}

Array cumsum(const Array& x, int64_t axis, bool reverse) {
  check_array(x, "cumsum");
  require(axis >= 0 && axis < x.rank(), "cumsum: axis " + std::to_string(axis) + " invalid for " + shape_string(x.shape));
  require(x.dtype != DType::pred, "cumsum: dtype pred is not supported");
  Array out = x;
  const int64_t n = x.shape[size_t(axis)], step = row_major_strides(x.shape)[size_t(axis)];
  std::vector<int64_t> idx(x.shape.size(), 0);
  for (size_t i = 0; i < x.data.size(); ++i, next_index(idx, x.shape)) {
    if (idx[size_t(axis)] != 0) continue;  // one line per position with index 0 on the axis
    double sum = 0;
    for (int64_t k = 0; k < n; ++k) {
      const size_t at = i + size_t((reverse ? n - 1 - k : k) * step);
      sum += x.data[at];
      out.data[at] = round_to(x.dtype, sum);
      if (x.dtype == DType::bf16 || x.dtype == DType::f16) sum = out.data[at];  // XLA: no wider accumulator
    }
  }
  return out;
}

}  // namespace tandem::ref
