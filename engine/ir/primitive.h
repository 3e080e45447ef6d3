// A primitive and its rule tables, the autodidax way: one entry per table, filled in one
// file per primitive family. A backend without an impl reports "unsupported" for a case.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ir/ir.h"

namespace tandem {

class Value;  // builder handle (engine/ir/builder.h)

// What an impl may need beyond its operands: the device, and a way to run a sub-program
// (scan, checkpoint) on the same backend.
struct EvalContext {
  Device device;
  std::function<std::vector<Tensor>(const Program&, const std::vector<Tensor>&)> run_program;
};

using ShapeRule = std::function<std::vector<AType>(const std::vector<AType>&, const Params&)>;
using Impl = std::function<std::vector<Tensor>(const std::vector<Tensor>&, const Params&,
                                               EvalContext&)>;
// Reverse mode (engine/ir/vjp_args.h defines VjpArgs): the rule reads primal inputs and
// outputs on demand (each read may save a residual or recompute it, so read only what the
// derivative needs) and returns the cotangent of each input (nullopt: zero / not
// differentiable), emitted into args.builder.
struct VjpArgs;
using VjpRule = std::function<std::vector<std::optional<Value>>(const VjpArgs&, const Params&)>;
// Batching: inputs with their batch axis (nullopt: unbatched) → outputs and theirs.
using BatchRule = std::function<std::pair<std::vector<Value>, std::vector<std::optional<int>>>(
    const std::vector<Value>& in, const std::vector<std::optional<int>>& in_axes,
    const Params&)>;

struct Primitive {
  std::string name;
  ShapeRule shape;
  Impl cpu;
  Impl cuda;
  VjpRule vjp;
  BatchRule batch;
  const Impl& impl(DeviceKind k) const { return k == DeviceKind::cpu ? cpu : cuda; }
};

// Looks up a registered primitive; unknown names are a bad-input error.
const Primitive& primitive(const std::string& name);
Primitive& mutable_primitive(const std::string& name);  // for backends adding impls
std::vector<std::string> primitive_names();
void register_primitive(Primitive p);

}  // namespace tandem
