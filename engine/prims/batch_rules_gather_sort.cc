// Batching rules for gather, scatter_add, scatter and sort. Gather and scatter_add use their batching
// dims as JAX's _gather_batching_rule / _scatter_batching_rule do (scatter_add and scatter alike) when both the operand and
// the indices are mapped: every mapped operand moves its batch axis to the front (an
// unmapped one is broadcast there), which becomes operand batching dim 0 paired with indices
// dim 0. A gather of an unmapped operand by mapped indices needs no copy of the operand: the
// batch is one more batch dim of the indices. sort shifts its dimension past the batch axis.
#include "engine/core/error.h"
#include "engine/prims/batch_rules.h"
#include "engine/prims/gather_scatter.h"

namespace tandem {
namespace {
using Result = std::pair<std::vector<Value>, std::vector<BatchAxis>>;
using Axes = std::vector<BatchAxis>;

void set(const char* name, BatchRule r) { mutable_primitive(name).batch = std::move(r); }

std::vector<int64_t> shifted(std::vector<int64_t> v) {
  for (int64_t& x : v) ++x;
  return v;
}
std::vector<int64_t> zero_then_shifted(const std::vector<int64_t>& v) {
  std::vector<int64_t> r = shifted(v);
  r.insert(r.begin(), 0);
  return r;
}

Result gather_batched(const std::vector<Value>& in, const Axes& axes, const Params& p) {
  GatherDims d = gather_dims_of(p);
  Shape slice = p.get_ints("slice_sizes");
  std::string mode = index_mode(p, "gather");
  std::optional<double> fill;
  if (p.has("fill_value")) fill = gather_fill_value(p, in[0].dtype());
  if (!axes[0]) {  // only the indices are mapped: one more batch dim of the indices
    Value idx = move_axis(in[1], *axes[1], 0);
    GatherDims q{shifted(d.offset_dims), d.collapsed_slice_dims, d.start_index_map, d.operand_batching_dims,
                 shifted(d.start_indices_batching_dims)};
    return Result{{gather(in[0], idx, q, slice, mode, fill)}, {0}};
  }
  int64_t size = batch_size_of(in, axes);
  Value x = batch_at_front(in[0], axes[0], size), idx = batch_at_front(in[1], axes[1], size);
  GatherDims q{shifted(d.offset_dims), shifted(d.collapsed_slice_dims), shifted(d.start_index_map),
               zero_then_shifted(d.operand_batching_dims), zero_then_shifted(d.start_indices_batching_dims)};
  slice.insert(slice.begin(), 1);
  return Result{{gather(x, idx, q, slice, mode, fill)}, {0}};
}

template <Value (*Op)(Value, Value, Value, const ScatterDims&, const std::string&)>
Result scatter_batched(const std::vector<Value>& in, const Axes& axes, const Params& p) {
  ScatterDims d = scatter_dims_of(p);
  int64_t size = batch_size_of(in, axes);
  Value x = batch_at_front(in[0], axes[0], size), idx = batch_at_front(in[1], axes[1], size),
        u = batch_at_front(in[2], axes[2], size);
  ScatterDims q{shifted(d.update_window_dims), shifted(d.inserted_window_dims), shifted(d.scatter_dims_to_operand_dims),
                zero_then_shifted(d.operand_batching_dims), zero_then_shifted(d.scatter_indices_batching_dims)};
  return Result{{Op(x, idx, u, q, index_mode(p, "scatter"))}, {0}};
}

Result sort_batched(const std::vector<Value>& in, const Axes& axes, const Params& p) {
  int64_t size = batch_size_of(in, axes);
  std::vector<Value> args;
  for (size_t i = 0; i < in.size(); ++i) args.push_back(batch_at_front(in[i], axes[i], size));
  std::vector<Value> out = sort(args, p.get_int("dimension") + 1, p.get_bool("is_stable", true), p.get_int("num_keys", 1));
  return Result{out, Axes(out.size(), 0)};
}
}  // namespace

void register_gather_sort_batch_rules() {
  set("gather", gather_batched);
  set("scatter_add", scatter_batched<scatter_add>);
  set("scatter", scatter_batched<scatter>);
  set("sort", sort_batched);
}

}  // namespace tandem
