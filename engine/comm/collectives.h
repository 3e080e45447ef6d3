// JAX's collectives (jax.lax.psum … ragged_all_to_all) on host or device Tensors, written
// once above any Communicator. Every rank calls the same op with the same parameters; each
// rank passes its own x and gets its own result. Groups follow axis_index_groups: empty is
// one group of all ranks; a rank's axis index is its position in its group as listed.
// With ctx.validate (the default), arguments are checked on every rank and agreed over the
// control plane first, so a violation is the same bad-input error on every rank instead of
// a hang or a wrong answer. *_into variants write into a preallocated `out` (which may be x
// itself where the op is shape-preserving: in-place).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/comm/communicator.h"
#include "engine/core/tensor.h"

namespace tandem::comm {

using Groups = std::vector<std::vector<int>>;
class Watchdog;

class Collectives {
 public:
  explicit Collectives(Communicator& world);  // watched by the job watchdog (job.h)
  Communicator& world() { return world_; }
  // This rank's group communicator (split once per distinct groups, then cached). Call on
  // every rank with the same groups; they must already be validated.
  Communicator& group(const Groups& groups);
  int axis_index(const Groups& groups) { return group(groups).rank(); }

  bool validate = true;            // agree on arguments before every op
  Watchdog* watchdog;              // arms around every op when set (default: the job watchdog)

 private:
  Communicator& world_;
  std::map<Groups, std::unique_ptr<Communicator>> groups_;
};

// Reductions (the rules, with JAX's where they differ, are in docs/COLLECTIVES.md).
// psum/pmax/pmin keep shape and dtype, except psum of bool: an i32 count (JAX); pmax/pmin
// of bool are any/all. pmax/pmin: NaN on any member gives NaN, and -0 < +0, on every
// backend. pmean: sum in the input dtype, then / the member's own group size; integers and
// bool give f32. all_reduce_into takes no bool.
Tensor psum(Collectives& c, const Tensor& x, const Groups& g = {});
Tensor pmax(Collectives& c, const Tensor& x, const Groups& g = {});
Tensor pmin(Collectives& c, const Tensor& x, const Groups& g = {});
Tensor pmean(Collectives& c, const Tensor& x, const Groups& g = {});
void all_reduce_into(Collectives& c, ReduceOp op, const Tensor& x, const Tensor& out, const Groups& g = {});
// i32: the lowest axis index holding the max / min, elementwise (a NaN max / min: the
// lowest index holding a NaN).
Tensor pargmax(Collectives& c, const Tensor& x, const Groups& g = {});
Tensor pargmin(Collectives& c, const Tensor& x, const Groups& g = {});
Tensor axis_index(Collectives& c, const Groups& g = {});  // i32 scalar

// Shape after the op, for preallocating `out` (bad-input errors for bad axes / sizes).
Shape all_gather_shape(const Shape& x, int group_size, int64_t axis, bool tiled);
Shape psum_scatter_shape(const Shape& x, int group_size, int64_t dim, bool tiled);
Shape all_to_all_shape(const Shape& x, int group_size, int64_t split, int64_t concat, bool tiled);

Tensor all_gather(Collectives& c, const Tensor& x, int64_t axis = 0, bool tiled = false, const Groups& g = {});
void all_gather_into(Collectives& c, const Tensor& x, const Tensor& out, int64_t axis, bool tiled, const Groups& g = {});
Tensor psum_scatter(Collectives& c, const Tensor& x, int64_t dim = 0, bool tiled = false, const Groups& g = {});
void psum_scatter_into(Collectives& c, const Tensor& x, const Tensor& out, int64_t dim, bool tiled, const Groups& g = {});
Tensor all_to_all(Collectives& c, const Tensor& x, int64_t split_axis, int64_t concat_axis,
                  bool tiled = false, const Groups& g = {});
void all_to_all_into(Collectives& c, const Tensor& x, const Tensor& out, int64_t split_axis,
                     int64_t concat_axis, bool tiled, const Groups& g = {});
Tensor pswapaxes(Collectives& c, const Tensor& x, int64_t axis, const Groups& g = {});

// ppermute over the world: (source, destination) pairs; no destination → zeros.
Tensor ppermute(Collectives& c, const Tensor& x, const std::vector<std::pair<int, int>>& perm);
void ppermute_into(Collectives& c, const Tensor& x, const Tensor& out, const std::vector<std::pair<int, int>>& perm);
Tensor pshuffle(Collectives& c, const Tensor& x, const std::vector<int>& perm);
// Every member gets the input of the member at position `source` of its group.
Tensor pbroadcast(Collectives& c, const Tensor& x, int source, const Groups& g = {});
void pbroadcast_into(Collectives& c, const Tensor& x, const Tensor& out, int source, const Groups& g = {});

// pgather (jax.lax.pgather over the group axis): out[j...] = x of the member at position
// idx[j...], shape idx.shape + x.shape, the same on every member; idx is i32 (host), equal on
// every rank, each index clamped into [0, G) as XLA's gather clamps.
Tensor pgather(Collectives& c, const Tensor& x, const Tensor& idx, const Groups& g = {});

// A device mesh (jax.sharding.Mesh): named axes and their sizes, ranks in row-major order.
struct Mesh {
  std::vector<std::pair<std::string, int>> axes;
};
// The groups of a collective over `names`, one or several of the mesh's axes (JAX's
// axis_name=('x','y')): members differ only in those axes and are listed by their index in
// the combined axis, row-major over `names` as given. axis_index_groups, when given, split
// that combined axis (the groups per axis). Pass the result as any op's groups.
Groups mesh_groups(const Mesh& m, const std::vector<std::string>& names, int world_size,
                   const Groups& axis_index_groups = {});

// ragged_all_to_all (JAX's argument names; offsets and sizes in rows of the leading axis).
struct RaggedOffsets {
  std::vector<int64_t> input_offsets, send_sizes, output_offsets, recv_sizes;
};
Tensor ragged_all_to_all(Collectives& c, const Tensor& operand, const Tensor& output,
                         const RaggedOffsets& o, const Groups& g = {});
// Writes the received slices into `out` itself (its other rows are kept): no copy of the
// output, and no staging when each peer's slices are contiguous on both sides.
void ragged_all_to_all_into(Collectives& c, const Tensor& operand, const Tensor& out,
                            const RaggedOffsets& o, const Groups& g = {});

}  // namespace tandem::comm
