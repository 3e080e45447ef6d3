// Batching rules for reduce_window_max and reduce_window_sum, as JAX's _reduce_window_batch_rule:
// the batch axis stays where it is and gets a window of 1, stride 1, no padding, no dilation.
#include "engine/prims/batch_rules.h"
#include "engine/prims/reduce_window.h"

namespace tandem {
namespace {
using Result = std::pair<std::vector<Value>, std::vector<BatchAxis>>;
using Axes = std::vector<BatchAxis>;

template <Value (*Op)(Value, const WindowDims&)>
Result window_batched(const std::vector<Value>& in, const Axes& axes, const Params& p) {
  const int b = *axes[0];
  const Shape& s = in[0].shape();
  Shape unbatched = s;
  unbatched.erase(unbatched.begin() + b);
  WindowDims w = window_dims_of(AType{unbatched, in[0].dtype()}, p, "reduce_window");
  w.window_dimensions.insert(w.window_dimensions.begin() + b, 1);
  w.window_strides.insert(w.window_strides.begin() + b, 1);
  w.padding.insert(w.padding.begin() + b, {0, 0});
  w.base_dilation.insert(w.base_dilation.begin() + b, 1);
  w.window_dilation.insert(w.window_dilation.begin() + b, 1);
  return Result{{Op(in[0], w)}, {b}};
}
}  // namespace

void register_window_batch_rules() {
  mutable_primitive("reduce_window_max").batch = window_batched<reduce_window_max>;
  mutable_primitive("reduce_window_sum").batch = window_batched<reduce_window_sum>;
}

}  // namespace tandem
