// The axis environment of a run (JAX's named axes as bound by pmap / shard_map): each named
// axis is this member's view of a group of members (its size, its index, and the collectives
// over it). The Executor is handed one explicitly (Executor::set_axis_env); the collective
// primitives (engine/prims/collective_prims.h) look their axis_name up in it and fail as bad
// input when it is not bound. The MPI / NCCL binding is engine/comm/comm_axis.h; the vmapped
// axis is never bound here: the vmap pass turns collectives over it into array ops.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/tensor.h"

namespace tandem {

enum class AxisReduce { sum, max, min, mean };

class NamedAxis {
 public:
  virtual ~NamedAxis() = default;
  virtual int size() const = 0;
  virtual int index() const = 0;
  virtual std::string describe() const = 0;  // for messages ("mpi world of 4", ...)
  // JAX semantics (jax.lax.psum ...), x on any device, the result on x's device.
  virtual Tensor reduce(const Tensor& x, AxisReduce op) = 0;
  virtual Tensor all_gather(const Tensor& x, int64_t axis, bool tiled) = 0;
  virtual Tensor psum_scatter(const Tensor& x, int64_t dim, bool tiled) = 0;
  virtual Tensor all_to_all(const Tensor& x, int64_t split_axis, int64_t concat_axis, bool tiled) = 0;
  // (source, destination) pairs of axis indices; a member that is no destination gets zeros.
  virtual Tensor ppermute(const Tensor& x, const std::vector<std::pair<int, int>>& perm) = 0;
};

using AxisEnv = std::map<std::string, std::shared_ptr<NamedAxis>>;

// A world of one member (what MPI with one rank gives): psum is the identity, all_gather
// adds an axis of 1, ppermute keeps x when (0, 0) is a pair. Used where one process checks a
// collective program against the one-rank reference (prims_vs_reference rows).
std::shared_ptr<NamedAxis> single_member_axis(const std::string& name);

// "i" -> {"i"}, "v,r" -> {"v", "r"}: axis_name params hold a tuple of names joined by ','.
std::vector<std::string> split_axis_names(const std::string& joined);

}  // namespace tandem
