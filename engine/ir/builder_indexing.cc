// The builder's gather, scatter_add and sort (builder_indexing.h): the params as JAX's
// primitives carry them, bound in the operands' builder.
#include "engine/core/error.h"
#include "engine/ir/builder_indexing.h"

namespace tandem {

Params gather_params(const GatherDims& d, const Shape& slice_sizes, const std::string& mode,
                     std::optional<double> fill_value) {
  Params p{{"offset_dims", d.offset_dims},
           {"collapsed_slice_dims", d.collapsed_slice_dims},
           {"start_index_map", d.start_index_map},
           {"operand_batching_dims", d.operand_batching_dims},
           {"start_indices_batching_dims", d.start_indices_batching_dims},
           {"slice_sizes", slice_sizes},
           {"indices_are_sorted", false},
           {"unique_indices", false},
           {"mode", mode}};
  if (fill_value) p.set("fill_value", *fill_value);
  return p;
}

Params scatter_add_params(const ScatterDims& d, const std::string& mode) {
  return Params{{"update_window_dims", d.update_window_dims},
                {"inserted_window_dims", d.inserted_window_dims},
                {"scatter_dims_to_operand_dims", d.scatter_dims_to_operand_dims},
                {"operand_batching_dims", d.operand_batching_dims},
                {"scatter_indices_batching_dims", d.scatter_indices_batching_dims},
                {"indices_are_sorted", false},
                {"unique_indices", false},
                {"mode", mode}};
}

Value gather(Value operand, Value indices, const GatherDims& d, const Shape& slice_sizes,
             const std::string& mode, std::optional<double> fill_value) {
  return operand.builder()->bind1("gather", {operand, indices}, gather_params(d, slice_sizes, mode, fill_value));
}

Value scatter_add(Value operand, Value indices, Value updates, const ScatterDims& d, const std::string& mode) {
  return operand.builder()->bind1("scatter_add", {operand, indices, updates}, scatter_add_params(d, mode));
}

Value scatter(Value operand, Value indices, Value updates, const ScatterDims& d, const std::string& mode) {
  return operand.builder()->bind1("scatter", {operand, indices, updates}, scatter_add_params(d, mode));
}

std::vector<Value> sort(const std::vector<Value>& operands, int64_t dimension, bool is_stable, int64_t num_keys) {
  if (operands.empty() || !operands[0].builder())
    throw_bad_input("sort of no traced operands", "pass at least one array from a Builder");
  return operands[0].builder()->bind("sort", operands,
                                     {{"dimension", dimension}, {"is_stable", is_stable}, {"num_keys", num_keys}});
}

}  // namespace tandem
