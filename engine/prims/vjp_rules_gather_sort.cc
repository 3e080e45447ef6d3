// Reverse-mode rules for gather, scatter_add and sort, as JAX's transposes and JVPs: gather's operand cotangent is a
// scatter_add of g with the same dimension numbers and mode (_gather_transpose_rule); scatter_add passes g to its
// operand and gathers g for its updates with fill 0 (_scatter_add_transpose_rule); sort re-sorts its keys with an iota
// to find the permutation and sends each output's cotangent back through it (_sort_jvp's gather, transposed: a
// scatter_add along the dimension with every other dim a batching dim). scatter (x.at[i].set(u)) as JAX's _scatter_jvp
// with non-unique indices, transposed: the operand's cotangent is g zeroed where an update landed (a scatter of zeros),
// the updates' is g gathered back, masked to the update that won its position (a scatter of the update ids 1..n finds
// the winner, so the rule follows the impl's last-wins order; an update dropped out of range gathers id 0 and gets
// none). Indices are i32 operands and get no cotangent.
#include "engine/core/error.h"
#include "engine/ir/vjp_args.h"
#include "engine/prims/gather_scatter.h"

namespace tandem {
namespace {
using Cts = std::vector<std::optional<Value>>;

void set(const char* name, VjpRule r) { mutable_primitive(name).vjp = std::move(r); }

std::optional<Value> sort_cotangent(const VjpArgs& a, const Params& p, size_t i) {
  const AType& t = a.in_types[i];
  // No element, no cotangent to route: zeros (the scatter below would ask for a window of 1
  // along a zero-size dimension, which its shape rule rightly refuses).
  if (num_elements(t.shape) == 0) return zeros(*a.builder, t);
  const int64_t dim = p.get_int("dimension"), keys = p.get_int("num_keys", 1);
  std::vector<Value> in;
  for (int64_t k = 0; k < keys; ++k) in.push_back(a.primal_in(size_t(k)));
  in.push_back(iota(*a.builder, DType::i32, t.shape, dim));
  Value perm = sort(in, dim, p.get_bool("is_stable", true), keys).back();
  Shape idx_shape = t.shape;
  idx_shape.push_back(1);
  std::vector<int64_t> others;
  for (int64_t d = 0; d < t.rank(); ++d)
    if (d != dim) others.push_back(d);
  ScatterDims d{{}, {dim}, {dim}, others, others};
  return scatter_add(zeros(*a.builder, t), reshape(perm, idx_shape), a.ct(i), d, "PROMISE_IN_BOUNDS");
}

Value scatter_update_cotangent(const VjpArgs& a, const Params& p) {
  ScatterDims s = scatter_dims_of(p);
  const std::string mode = index_mode(p, "scatter");
  GatherDims g{s.update_window_dims, s.inserted_window_dims, s.scatter_dims_to_operand_dims, s.operand_batching_dims,
               s.scatter_indices_batching_dims};
  Shape slice = scatter_window(a.in_types[0], a.in_types[2], s);
  const Shape& us = a.in_types[2].shape;
  Builder& b = *a.builder;
  Value ids = reshape(iota(b, DType::i32, {num_elements(us)}, 0), us) + broadcast_in_dim(b.literal(1, DType::i32), us, {});
  Value won = scatter(zeros(b, AType{a.in_types[0].shape, DType::i32}), a.primal_in(1), ids, s, mode);
  Value mine = compare(gather(won, a.primal_in(1), g, slice, mode, 0.0), ids, "eq");
  return select(mine, gather(a.ct(0), a.primal_in(1), g, slice, mode, 0.0), zeros(b, a.in_types[2]));
}

void gather_sort_rules() {
  set("gather", [](const VjpArgs& a, const Params& p) {
    Cts r(2);
    if (!a.wants(0)) return r;
    GatherDims g = gather_dims_of(p);
    ScatterDims s{g.offset_dims, g.collapsed_slice_dims, g.start_index_map, g.operand_batching_dims,
                  g.start_indices_batching_dims};
    r[0] = scatter_add(zeros(*a.builder, a.in_types[0]), a.primal_in(1), a.ct(0), s, index_mode(p, "gather"));
    return r;
  });
  set("scatter_add", [](const VjpArgs& a, const Params& p) {
    Cts r(3);
    if (a.wants(0)) r[0] = a.ct(0);
    if (!a.wants(2)) return r;
    ScatterDims s = scatter_dims_of(p);
    GatherDims g{s.update_window_dims, s.inserted_window_dims, s.scatter_dims_to_operand_dims, s.operand_batching_dims,
                 s.scatter_indices_batching_dims};
    Shape slice = scatter_window(a.in_types[0], a.in_types[2], s);
    r[2] = gather(a.ct(0), a.primal_in(1), g, slice, index_mode(p, "scatter_add"), 0.0);
    return r;
  });
  set("scatter", [](const VjpArgs& a, const Params& p) {
    Cts r(3);
    if (a.wants(0))
      r[0] = scatter(a.ct(0), a.primal_in(1), zeros(*a.builder, a.in_types[2]), scatter_dims_of(p), index_mode(p, "scatter"));
    if (a.wants(2)) r[2] = scatter_update_cotangent(a, p);
    return r;
  });
  set("sort", [](const VjpArgs& a, const Params& p) {
    Cts r(a.in_types.size());
    for (size_t i = 0; i < r.size(); ++i)
      if (a.wants(i) && a.cts.at(i)) r[i] = sort_cotangent(a, p, i);
    return r;
  });
}
}  // namespace

void register_gather_sort_vjp_rules() { gather_sort_rules(); }

}  // namespace tandem
