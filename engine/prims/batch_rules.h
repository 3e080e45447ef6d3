// Batching (the vmap rules, JAX's interpreters/batching.py): helpers the per-family rules
// share, and the interpreter that batches a whole Program (used by the vmap pass, and by the
// scan / checkpoint rules on their bodies, as JAX's batch_jaxpr).
//
// A batch axis is std::optional<int>: nullopt means "not mapped" (the value is the same for
// every example). Rules receive at least one mapped operand; the axis size is read from it.
#pragma once
#include <optional>
#include <vector>

#include "engine/ir/builder.h"

namespace tandem {

using BatchAxis = std::optional<int>;

// Where the interpreter must leave an output: wherever its rule put it (keep), not mapped
// (an error if it is mapped), or at a given axis (an unmapped value is broadcast there, a
// mapped one moved: the seed's matchaxis).
struct OutDest {
  enum Kind { keep, unmapped, at } kind = keep;
  int axis = 0;
  static OutDest keep_as_is() { return {keep, 0}; }
  static OutDest not_mapped() { return {unmapped, 0}; }
  static OutDest at_axis(int a) { return {at, a}; }
};

struct BatchedProgram {
  Program program;
  std::vector<BatchAxis> out_axes;
};

// Batches `p` over `size` examples: input i of the result is p's input i with `size`
// inserted at in_axes[i] (unchanged when nullopt). `dests` (empty: keep every output) says
// where each output must end up. Throws bad input when an output is mapped but asked to be
// unmapped, naming `what` (the caller, for the message).
BatchedProgram batch_program(const Program& p, const std::vector<BatchAxis>& in_axes,
                             const std::vector<OutDest>& dests, int64_t size, const char* what);

// The name of the axis being vmapped ("" when unnamed), set by the vmap pass for one walk;
// the nested walks of scan / checkpoint bodies batch the same axis and see the same name.
// An equation whose axis_name param names it is batched by its primitive's axis rule
// (Primitive::axis_batch). A scoped thread-local, not a global: vmap of vmap restores it.
class VmapAxisNameScope {
 public:
  explicit VmapAxisNameScope(std::string name);
  ~VmapAxisNameScope();
  VmapAxisNameScope(const VmapAxisNameScope&) = delete;
  VmapAxisNameScope& operator=(const VmapAxisNameScope&) = delete;

 private:
  std::string prev_;
};
const std::string& vmap_axis_name();
// Whether a ','-joined axis_name param lists `name`.
bool names_axis(const std::string& joined, const std::string& name);

// ---- helpers for rules ---------------------------------------------------------------
// The mapped axis size: the first mapped operand's extent on its batch axis.
int64_t batch_size_of(const std::vector<Value>& in, const std::vector<BatchAxis>& axes);
// x with axis `from` moved to position `to` (a transpose; no equation when from == to).
Value move_axis(Value x, int from, int to);
// x with a new axis of `size` at `axis`, every slice a copy of x (broadcast_in_dim).
Value broadcast_along(Value x, int64_t size, int axis);
// x with its batch axis at the front; an unmapped x is broadcast to `size` there.
Value batch_at_front(Value x, BatchAxis axis, int64_t size);
// x moved or broadcast so that its batch axis is `dest` (the seed's matchaxis with int dst).
Value match_axis(Value x, BatchAxis src, int dest, int64_t size);

// Runs `prim` once per example, as a scan over the batch: mapped operands are sliced along
// their batch axis, unmapped ones are passed whole; every output is mapped at axis 0. The
// fallback for rules with no vectorized form (batched gather indices, per-example weights).
std::pair<std::vector<Value>, std::vector<BatchAxis>> batch_by_loop(
    const std::string& prim, const std::vector<Value>& in, const std::vector<BatchAxis>& axes,
    const Params& params);

}  // namespace tandem
