// vmap over the IR (JAX's jax.vmap, interpreters/batching.py): a Program → Program pass.
// vmap(p, in_axes, out_axes, axis_size) is the program that runs p on axis_size examples at
// once: input i carries the examples along in_axes[i] (nullopt: the same value for every
// example), output j returns them along out_axes[j]. Each equation is batched by its
// primitive's BatchRule (engine/prims/batch_rules*.cc). As in JAX: negative axes count from
// the end of the batched value; an output that does not depend on any mapped input is
// broadcast to its out axis; an output that does but is asked for nullopt is an error.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ir/ir.h"

namespace tandem {

using VmapAxis = std::optional<int64_t>;  // nullopt: not mapped

// in_axes / out_axes: one per input / output; empty means 0 for all. axis_name names the
// mapped axis in messages. Bad axes (out of range, wrong count) are bad-input errors.
Program vmap(const Program& p, std::vector<VmapAxis> in_axes, std::vector<VmapAxis> out_axes,
             int64_t axis_size, const std::string& axis_name = "");

// The mapped axis size of batched arguments of these types, checked: every mapped argument
// must have the same extent on its axis (the error names the arguments that disagree), and
// the rest of its shape must be p's input shape. With no mapped argument axis_size is
// required; when given it must agree with the arguments.
int64_t vmap_axis_size(const Program& p, const std::vector<VmapAxis>& in_axes,
                       const std::vector<AType>& args, std::optional<int64_t> axis_size = {});

// vmap(p, ...) run on `args` (axis size from vmap_axis_size) on one backend.
std::vector<Tensor> run_vmap(const Program& p, const std::vector<VmapAxis>& in_axes,
                             const std::vector<VmapAxis>& out_axes, const std::vector<Tensor>& args,
                             Device device = Device::cpu());

// Host helpers for per-example loops (the oracle side of vmap checks and benchmarks): the
// examples of x along `axis` (negative from the end), and examples stacked along `axis` of the
// result. Plain index arithmetic, independent of the pass.
std::vector<Tensor> unstack(const Tensor& x, int64_t axis);
Tensor stack(const std::vector<Tensor>& examples, int64_t axis);

}  // namespace tandem
