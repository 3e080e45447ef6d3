// Reference reduce_window_max / reduce_window_sum (reduce_window.h), written out index by index.
#include "reference/reduce_window.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "reference/rounding.h"

namespace tandem::ref {
namespace {

int64_t dilate(int64_t n, int64_t by) { return n == 0 ? 0 : (n - 1) * by + 1; }

void check_window(const std::vector<int64_t>& in, const Window& w) {
  const size_t r = in.size();
  if (w.dims.size() != r || w.strides.size() != r || w.padding.size() != r || w.base_dilation.size() != r ||
      w.window_dilation.size() != r)
    throw std::invalid_argument("reduce_window: one window size, stride, padding and dilation per dim");
  for (size_t d = 0; d < r; ++d)
    if (w.dims[d] < 1 || w.strides[d] < 1 || w.base_dilation[d] < 1 || w.window_dilation[d] < 1)
      throw std::invalid_argument("reduce_window: window sizes, strides and dilations must be >= 1");
}

template <class F>
Array reduce(const Array& x, const Window& w, double init, F combine) {
  check_array(x, "reduce_window operand");
  const std::vector<int64_t> out_shape = reduce_window_shape(x.shape, w);
  Array out = full(out_shape, x.dtype, 0);
  const std::vector<int64_t> st = row_major_strides(x.shape);
  std::vector<int64_t> o(out_shape.size(), 0);
  for (double& y : out.data) {
    double acc = init;
    std::vector<int64_t> k(w.dims.size(), 0);
    for (int64_t n = 0; n < shape_numel(w.dims); ++n) {
      if (auto at = window_element(x.shape, w, o, k)) acc = combine(acc, x.data[size_t(flat_offset(*at, st))]);
      next_index(k, w.dims);
    }
    // i32 sums wrap, as XLA's (exact in f64 up to 2^53, so wrapped before rounding)
    y = x.dtype == DType::i32 && std::isfinite(acc) ? double(int32_t(uint32_t(int64_t(acc)))) : round_to(x.dtype, acc);
    next_index(o, out_shape);
  }
  return out;
}
}  // namespace

std::vector<int64_t> reduce_window_shape(const std::vector<int64_t>& in, const Window& w) {
  check_window(in, w);
  std::vector<int64_t> out;
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t padded = dilate(in[d], w.base_dilation[d]) + w.padding[d].first + w.padding[d].second;
    const int64_t span = dilate(w.dims[d], w.window_dilation[d]);
    out.push_back(padded < span ? 0 : (padded - span) / w.strides[d] + 1);
  }
  return out;
}

std::optional<std::vector<int64_t>> window_element(const std::vector<int64_t>& in_shape, const Window& w,
                                                   const std::vector<int64_t>& out, const std::vector<int64_t>& k,
                                                   bool* padding) {
  std::vector<int64_t> at;
  bool hole = false;
  if (padding) *padding = false;
  for (size_t d = 0; d < in_shape.size(); ++d) {
    // Position in the dilated operand (before padding).
    const int64_t p = out[d] * w.strides[d] + k[d] * w.window_dilation[d] - w.padding[d].first;
    if (p < 0 || p >= dilate(in_shape[d], w.base_dilation[d])) {
      if (padding) *padding = true;
      return std::nullopt;
    }
    hole = hole || p % w.base_dilation[d] != 0;
    at.push_back(p / w.base_dilation[d]);
  }
  if (hole) return std::nullopt;
  return at;
}

Array reduce_window_max(const Array& x, const Window& w) {
  const double lowest = x.dtype == DType::i32 ? double(std::numeric_limits<int32_t>::min())
                                              : -std::numeric_limits<double>::infinity();
  return reduce(x, w, lowest, [](double acc, double v) { return std::isnan(acc) || std::isnan(v) ? NAN : std::max(acc, v); });
}

Array reduce_window_sum(const Array& x, const Window& w) {
  return reduce(x, w, 0.0, [](double acc, double v) { return acc + v; });
}

}  // namespace tandem::ref
