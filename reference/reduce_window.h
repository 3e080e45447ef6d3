// Reference reduce_window_max / reduce_window_sum with JAX's params (lax.reduce_window_max_p,
// reduce_window_sum_p): each output element reduces its window of the operand dilated by
// base_dilation and padded by (lo, hi); padding and holes hold the init value (-inf or the
// lowest i32 for max, 0 for sum). Naive loops over every output element and window offset,
// f64 sums rounded once; NaN propagates through max.
#pragma once
#include <optional>
#include <utility>
#include <vector>

#include "reference/array.h"

namespace tandem::ref {

struct Window {
  std::vector<int64_t> dims, strides;
  std::vector<std::pair<int64_t, int64_t>> padding;
  std::vector<int64_t> base_dilation, window_dilation;
};

std::vector<int64_t> reduce_window_shape(const std::vector<int64_t>& in, const Window& w);
// Where window offset `k` of output element `out` reads x: an operand index, nullopt for a
// hole of base_dilation or padding. `padding` (optional) says which of the two it is.
std::optional<std::vector<int64_t>> window_element(const std::vector<int64_t>& in_shape, const Window& w,
                                                   const std::vector<int64_t>& out, const std::vector<int64_t>& k,
                                                   bool* padding = nullptr);
Array reduce_window_max(const Array& x, const Window& w);
Array reduce_window_sum(const Array& x, const Window& w);

}  // namespace tandem::ref
