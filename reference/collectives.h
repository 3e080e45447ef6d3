// The semantic model of JAX's collectives (jax.lax.psum … ragged_all_to_all): every rank's
// input goes in, every rank's output comes out, all in one process with plain loops and f64
// accumulation. Rank r of a world of n ranks is entry r of a PerRank vector. Groups follow
// axis_index_groups: empty means one group of all ranks in order; a rank's position inside
// its group (in the order the group lists it) is its axis index. Bad arguments throw
// std::invalid_argument with a message that names the op.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "reference/array.h"

namespace tandem::ref {

using PerRank = std::vector<Array>;
using Groups = std::vector<std::vector<int>>;

// Throws unless groups (when non-empty) cover 0..n-1 exactly once; with equal_sizes, also
// unless every group has the same size. Returns the groups made explicit.
Groups check_groups(const Groups& groups, int n, bool equal_sizes, const char* op);

// psum / pmax / pmin: elementwise reduction within each group, f64 accumulation then one
// rounding to the dtype (for small integer-valued inputs this is exact in every dtype).
// pmax / pmin: a NaN anywhere gives NaN; -0 < +0. psum of only -0.0 is -0.0 (IEEE; JAX
// gives +0.0). The rules are in docs/COLLECTIVES.md.
PerRank psum(const PerRank& xs, const Groups& groups = {});
PerRank pmax(const PerRank& xs, const Groups& groups = {});
PerRank pmin(const PerRank& xs, const Groups& groups = {});
// pmean: sum / the member's own group size (JAX divides by the first group's size);
// integer inputs: the int32 sum, converted to f32, divided in f32 (JAX: true division).
PerRank pmean(const PerRank& xs, const Groups& groups = {});
// pargmax / pargmin: the (lowest) axis index holding the max / min, as i32, elementwise;
// where the max / min is NaN, the lowest index holding a NaN (JAX's pargmax gives INT32_MAX).
PerRank pargmax(const PerRank& xs, const Groups& groups = {});
PerRank pargmin(const PerRank& xs, const Groups& groups = {});
// axis_index: an i32 scalar per rank, its position within its group.
PerRank axis_index(int n, const Groups& groups = {});

// all_gather: tiled=false stacks the group's inputs in a new axis at `axis` (in
// [-(rank+1), rank]); tiled=true concatenates them along the existing `axis`.
PerRank all_gather(const PerRank& xs, int64_t axis, bool tiled, const Groups& groups = {});
// psum_scatter: the psum, then member i keeps chunk i of scatter_dimension (tiled keeps the
// dim with size/G; untiled needs size == G and drops the dim).
PerRank psum_scatter(const PerRank& xs, int64_t scatter_dimension, bool tiled, const Groups& groups = {});
// all_to_all: member j sends chunk j of split_axis to member j; chunks received from member i
// land at position i along concat_axis. Untiled: shape[split_axis] == G, output shape is
// insert(delete(shape, split_axis), concat_axis, G).
PerRank all_to_all(const PerRank& xs, int64_t split_axis, int64_t concat_axis, bool tiled, const Groups& groups = {});
// pswapaxes(x, axis) = all_to_all(x, axis, axis).
PerRank pswapaxes(const PerRank& xs, int64_t axis, const Groups& groups = {});

// ppermute: perm is (source, destination) pairs over the world; a rank that is no
// destination gets zeros. Sources and destinations must each be unique and in range.
PerRank ppermute(const PerRank& xs, const std::vector<std::pair<int, int>>& perm);
// pshuffle: output at i comes from input perm[i]; perm must be a permutation of 0..n-1.
PerRank pshuffle(const PerRank& xs, const std::vector<int>& perm);
// pbroadcast: every member gets the input of the member at position `source` of its group.
PerRank pbroadcast(const PerRank& xs, int source, const Groups& groups = {});

// pgather: every member gets stack(group inputs)[idx], shape idx.shape + x.shape; idx is one
// index array for all ranks, each index clamped into [0, G) (XLA's gather clamps).
PerRank pgather(const PerRank& xs, const std::vector<int64_t>& idx_shape, const std::vector<int64_t>& idx,
                const Groups& groups = {});

// ragged_all_to_all arguments of one rank (JAX's names). K = len(offsets) = G * slices per
// peer; slice k goes to member k / (K / G).
struct RaggedArgs {
  Array operand;  // [N, ...]
  Array output;   // [M, ...] — kept where nothing is written
  std::vector<int64_t> input_offsets, send_sizes, output_offsets, recv_sizes;
};
// Checks the whole contract (lengths, divisibility, send_sizes == all_to_all(recv_sizes),
// bounds on both sides, matching trailing dims and dtypes) and computes every rank's result.
PerRank ragged_all_to_all(const std::vector<RaggedArgs>& args, const Groups& groups = {});

}  // namespace tandem::ref
