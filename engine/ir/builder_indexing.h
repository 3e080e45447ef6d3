// The builder's gather, scatter_add and sort (builder_indexing.cc), beside builder.h: JAX's
// GatherDimensionNumbers and ScatterDimensionNumbers; the index vector is always the last dim
// of the indices (i32). mode: "CLIP", "FILL_OR_DROP" or "PROMISE_IN_BOUNDS".
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/builder.h"

namespace tandem {

struct GatherDims {
  std::vector<int64_t> offset_dims, collapsed_slice_dims, start_index_map, operand_batching_dims,
      start_indices_batching_dims;
};
struct ScatterDims {
  std::vector<int64_t> update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims,
      operand_batching_dims, scatter_indices_batching_dims;
};
// fill_value: FILL_OR_DROP's value for out-of-range windows (absent: JAX's default, NaN for
// floats, the lowest value for i32, true for bool).
Params gather_params(const GatherDims& d, const Shape& slice_sizes, const std::string& mode,
                     std::optional<double> fill_value = std::nullopt);
Params scatter_add_params(const ScatterDims& d, const std::string& mode);
Value gather(Value operand, Value indices, const GatherDims& d, const Shape& slice_sizes,
             const std::string& mode = "PROMISE_IN_BOUNDS", std::optional<double> fill_value = std::nullopt);
Value scatter_add(Value operand, Value indices, Value updates, const ScatterDims& d,
                  const std::string& mode = "FILL_OR_DROP");
// lax.scatter (x.at[i].set(u)): scatter_add's dims and modes; where indices repeat, the last
// update in row-major order of the updates wins.
Value scatter(Value operand, Value indices, Value updates, const ScatterDims& d, const std::string& mode = "FILL_OR_DROP");
// lax.sort: the operands (one shape) sorted together along `dimension` by the first num_keys.
std::vector<Value> sort(const std::vector<Value>& operands, int64_t dimension, bool is_stable = true,
                        int64_t num_keys = 1);

}  // namespace tandem
