// A primitive and its rule tables, the autodidax way: one entry per table, filled in one
// file per primitive family. A backend without an impl reports "unsupported" for a case.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/axis_env.h"
#include "engine/core/tensor.h"
#include "engine/ir/ir.h"

namespace tandem {

class Value;    // builder handle (engine/ir/builder.h)
class Builder;

// What an impl may need beyond its operands: the device, a way to run a sub-program
// (scan, checkpoint) on the same backend, and the named axes collectives run over (null:
// none bound; engine/core/axis_env.h).
struct EvalContext {
  Device device;
  std::function<std::vector<Tensor>(const Program&, const std::vector<Tensor>&)> run_program;
  const AxisEnv* axes = nullptr;
};

using ShapeRule = std::function<std::vector<AType>(const std::vector<AType>&, const Params&)>;
using Impl = std::function<std::vector<Tensor>(const std::vector<Tensor>&, const Params&, EvalContext&)>;
// Reverse mode (engine/ir/vjp_args.h defines VjpArgs): the rule reads primal inputs and
// outputs on demand (each read may save a residual or recompute it, so read only what the
// derivative needs) and returns the cotangent of each input (nullopt: zero / not
// differentiable), emitted into args.builder.
struct VjpArgs;
using VjpRule = std::function<std::vector<std::optional<Value>>(const VjpArgs&, const Params&)>;
// Batching: inputs with their batch axis (nullopt: unbatched) → outputs and theirs.
using BatchRule = std::function<std::pair<std::vector<Value>, std::vector<std::optional<int>>>(
    const std::vector<Value>& in, const std::vector<std::optional<int>>& in_axes, const Params&)>;
// Batching of a collective over the vmapped axis itself (JAX's fancy_primitive_batchers with
// axis_data): called instead of `batch` when the equation's axis_name names the vmapped
// axis (axis_name, axis_size), even when no operand is mapped (axis_index has none).
using AxisBatchRule = std::function<std::pair<std::vector<Value>, std::vector<std::optional<int>>>(
    Builder& b, const std::vector<Value>& in, const std::vector<std::optional<int>>& in_axes, const Params&,
    const std::string& axis_name, int64_t axis_size)>;

// What kind of operation a primitive is, set by its family file at registration, so passes
// and tests ask the primitive instead of keeping their own lists of names.
enum Trait : unsigned {
  kElementwise = 1u << 0,        // output element i reads only element i of each operand
  kElementwiseUnary = 1u << 1,   // one operand, no params, same type out (neg, exp, ...)
  kElementwiseBinary = 1u << 2,  // two operands of one dtype, a rank-0 one broadcasts (add, ...)
  kReduction = 1u << 3,          // reduces over params "axes"
  kStructural = 1u << 4,         // moves or creates elements without arithmetic (reshape, slice, iota)
  kContraction = 1u << 5,        // dot_general
  kControlFlow = 1u << 6,        // runs a sub-program param (scan, checkpoint)
  kFused = 1u << 7,              // a whole layer as one op (lstm_fwd / lstm_bwd)
  kAnnotation = 1u << 8,         // identity on values, a marker for passes (checkpoint_name)
  kCollective = 1u << 9,         // runs over named axes (param axis_name): psum … axis_index
  // Control flow the vjp pass linearizes itself (engine/passes/vjp.cc), told apart by these:
  kRemat = 1u << 10,             // its body is linearized under its own policy param, inlined (checkpoint)
  kLoop = 1u << 11,              // runs its body per step with carries, split and stacked (scan)
};

struct Primitive {
  std::string name;
  unsigned traits = 0;  // Trait bits
  bool has(Trait t) const { return (traits & t) != 0; }
  // The params it takes, by name: a program read from JSON (program_json_read.cc) giving it any
  // other is refused, so an exporter's param tandem does not know is not silently ignored.
  std::vector<std::string> params;
  ShapeRule shape;
  Impl cpu;
  Impl cuda;
  VjpRule vjp;
  // When set, the vjp pass's forward copy binds these params (lstm_fwd: training mode, so that
  // its reserve becomes a residual); it may add outputs after the primal's.
  std::function<Params(const Params&)> vjp_forward_params;
  BatchRule batch;
  AxisBatchRule axis_batch;  // collectives only (engine/prims/collective_prims_rules.cc)
  const Impl& impl(DeviceKind k) const { return k == DeviceKind::cpu ? cpu : cuda; }
};

// Looks up a registered primitive; unknown names are a bad-input error.
const Primitive& primitive(const std::string& name);
Primitive& mutable_primitive(const std::string& name);  // for backends adding impls
std::vector<std::string> primitive_names();
void register_primitive(Primitive p);

}  // namespace tandem
