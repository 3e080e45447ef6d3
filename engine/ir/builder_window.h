// The builder's reduce_window_max and reduce_window_sum (builder_window.cc): JAX's params, one
// entry per operand dim; padding (lo, hi) pairs, flattened in the Program as conv's are.
#pragma once
#include <utility>
#include <vector>

#include "engine/ir/builder.h"

namespace tandem {

struct WindowDims {
  std::vector<int64_t> window_dimensions, window_strides;
  std::vector<std::pair<int64_t, int64_t>> padding;
  std::vector<int64_t> base_dilation, window_dilation;
};
// dims with strides, padding and dilations defaulted (1, (0, 0), 1) where left empty.
WindowDims window_dims(const std::vector<int64_t>& window, std::vector<int64_t> strides = {},
                       std::vector<std::pair<int64_t, int64_t>> padding = {}, std::vector<int64_t> base_dilation = {},
                       std::vector<int64_t> window_dilation = {});
Params window_params(const WindowDims& w);
Value reduce_window_max(Value x, const WindowDims& w);
Value reduce_window_sum(Value x, const WindowDims& w);

}  // namespace tandem
