// The builder's reduce_window_max / reduce_window_sum (builder_window.h).
#include "engine/ir/builder_window.h"

namespace tandem {

WindowDims window_dims(const std::vector<int64_t>& window, std::vector<int64_t> strides,
                       std::vector<std::pair<int64_t, int64_t>> padding, std::vector<int64_t> base_dilation,
                       std::vector<int64_t> window_dilation) {
  const size_t r = window.size();
  if (strides.empty()) strides.assign(r, 1);
  if (padding.empty()) padding.assign(r, {0, 0});
  if (base_dilation.empty()) base_dilation.assign(r, 1);
  if (window_dilation.empty()) window_dilation.assign(r, 1);
  return WindowDims{window, strides, padding, base_dilation, window_dilation};
}

Params window_params(const WindowDims& w) {
  std::vector<int64_t> padding;
  for (auto [lo, hi] : w.padding) padding.insert(padding.end(), {lo, hi});
  return Params{{"window_dimensions", w.window_dimensions},
                {"window_strides", w.window_strides},
                {"padding", padding},
                {"base_dilation", w.base_dilation},
                {"window_dilation", w.window_dilation}};
}

Value reduce_window_max(Value x, const WindowDims& w) {
  return x.builder()->bind1("reduce_window_max", {x}, window_params(w));
}
Value reduce_window_sum(Value x, const WindowDims& w) {
  return x.builder()->bind1("reduce_window_sum", {x}, window_params(w));
}

}  // namespace tandem
