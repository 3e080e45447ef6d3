// The collective primitives over named axes (jax.lax.psum … axis_index, JAX's names and
// semantics): psum pmean pmax pmin all_gather psum_scatter all_to_all ppermute axis_index.
// Every one has an `axis_name` param: one name, or a tuple joined by ',' ("v,r"; only the
// reductions take a tuple, reducing over all its axes). Executed, a collective looks its
// names up in the Executor's axis environment (engine/core/axis_env.h; the MPI / NCCL
// binding is engine/comm/comm_axis.h) and is bad input when a name is not bound. Under
// vmap with the same axis_name the batching interpreter rewrites it into array ops (the
// axis rules in collective_prims_rules.cc, JAX's fancy_primitive_batchers); a collective
// over another axis keeps the vmapped axis as an ordinary dimension of its operand.
// all_gather / psum_scatter / all_to_all carry `axis_size` (as JAX's params do) so that
// shapes are known when the program is built; a bound axis of another size is bad input.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "engine/ir/builder.h"

namespace tandem {

Value psum(Value x, const std::string& axis_name);
Value pmean(Value x, const std::string& axis_name);
Value pmax(Value x, const std::string& axis_name);
Value pmin(Value x, const std::string& axis_name);
// Untiled: a new axis of axis_size at `axis` (in [-(rank+1), rank]); tiled: concatenated.
Value all_gather(Value x, const std::string& axis_name, int64_t axis_size, int64_t axis = 0, bool tiled = false);
// The psum, member i keeping chunk i of `dim` (untiled: dim has axis_size and is dropped).
Value psum_scatter(Value x, const std::string& axis_name, int64_t axis_size, int64_t dim = 0, bool tiled = false);
// Chunk j of split_axis goes to member j, chunks land along concat_axis in member order.
// Untiled: shape[split] == axis_size, out = insert(delete(shape, split), concat, axis_size).
Value all_to_all(Value x, const std::string& axis_name, int64_t axis_size, int64_t split_axis,
                 int64_t concat_axis, bool tiled = false);
// (source, destination) pairs of axis indices; no source for a member: zeros.
Value ppermute(Value x, const std::string& axis_name, const std::vector<std::pair<int, int>>& perm);
Value axis_index(Builder& b, const std::string& axis_name);  // i32 scalar

// The perm param as pairs (it is stored flat: s0, d0, s1, d1, ...).
std::vector<std::pair<int, int>> perm_pairs(const Params& p);

}  // namespace tandem
