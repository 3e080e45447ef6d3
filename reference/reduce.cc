// reduce_sum, reduce_max and reduce_min: one pass over the input, each element added into the output
// position its kept axes name.
#include "reference/reduce.h"

#include <cmath>
#include <limits>
#include <string>

#include "reference/rounding.h"

namespace tandem::ref {
namespace {

struct Reduction {
  std::vector<int64_t> out_shape;
  std::vector<bool> reduced;  // per input axis
};

Reduction plan(const char* what, const Array& x, const std::vector<int64_t>& axes) {
  check_array(x, what);
  Reduction r{{}, std::vector<bool>(x.shape.size(), false)};
  for (int64_t a : axes) {
    require(a >= 0 && a < x.rank() && !r.reduced[a],
            std::string(what) + ": axes " + shape_string(axes) + " invalid for " +
                shape_string(x.shape) + " (each axis in range, at most once)");
    r.reduced[a] = true;
  }
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (!r.reduced[d]) r.out_shape.push_back(x.shape[d]);
  return r;
}

// Calls f(out_flat, value) for every element of x.
template <typename F>
void for_each_into(const Array& x, const Reduction& r, F f) {
  const auto out_strides = row_major_strides(r.out_shape);
  std::vector<int64_t> idx(x.shape.size(), 0);
  for (size_t flat = 0; flat < x.data.size(); ++flat, next_index(idx, x.shape)) {
    int64_t out = 0, k = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      if (!r.reduced[d]) out += idx[d] * out_strides[k++];
    f(out, x.data[flat]);
  }
}

}  // namespace

Array reduce_sum(const Array& x, std::vector<int64_t> axes) {
  const Reduction r = plan("reduce_sum", x, axes);
  require(x.dtype != DType::pred, "reduce_sum: dtype pred is not supported");
  const size_t n = static_cast<size_t>(shape_numel(r.out_shape));
  Array out{r.out_shape, x.dtype, std::vector<double>(n, 0.0)};
  if (x.dtype == DType::i32) {
    std::vector<int64_t> acc(n, 0);  // exact for fewer than 2^32 terms; wrapped at the end
    for_each_into(x, r, [&](int64_t o, double v) { acc[o] += static_cast<int64_t>(v); });
    for (size_t i = 0; i < n; ++i)
      out.data[i] = round_to(DType::i32, static_cast<double>(acc[i] % 4294967296LL));
    return out;
  }
  for_each_into(x, r, [&](int64_t o, double v) { out.data[o] += v; });
  for (double& v : out.data) v = round_to(x.dtype, v);
  return out;
}

Array reduce_max(const Array& x, std::vector<int64_t> axes) {
  const Reduction r = plan("reduce_max", x, axes);
  double init = -std::numeric_limits<double>::infinity();
  if (x.dtype == DType::i32) init = -2147483648.0;
  if (x.dtype == DType::pred) init = 0.0;
  Array out{r.out_shape, x.dtype,
            std::vector<double>(static_cast<size_t>(shape_numel(r.out_shape)), init)};
  for_each_into(x, r, [&](int64_t o, double v) {
    double& m = out.data[o];
    if (std::isnan(m)) return;
    if (std::isnan(v) || v > m) m = v;
  });
  return out;
}

Array reduce_min(const Array& x, std::vector<int64_t> axes) {
  const Reduction r = plan("reduce_min", x, axes);
  double init = std::numeric_limits<double>::infinity();
  if (x.dtype == DType::i32) init = 2147483647.0;
  if (x.dtype == DType::pred) init = 1.0;
  Array out{r.out_shape, x.dtype,
            std::vector<double>(static_cast<size_t>(shape_numel(r.out_shape)), init)};
  for_each_into(x, r, [&](int64_t o, double v) {
    double& m = out.data[o];
    if (std::isnan(m)) return;
    if (std::isnan(v) || v < m) m = v;
  });
  return out;
}

}  // namespace tandem::ref
