// device_put: shape rule, CPU impl (a copy between the CPU's memory kinds, counted), VJP
// rule (the reverse transfer), batch rule (identity on the batch axis), builder.
#include "engine/prims/device_put.h"

#include "engine/core/error.h"
#include "engine/prims/primitive_of.h"
#include "engine/ir/vjp_args.h"

namespace tandem {
namespace {

MemoryKind param_kind(const Params& p, const char* key) {
  return memory_kind_from_string(p.get_string(key, "device"));
}

std::vector<Tensor> device_put_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  const Tensor& x = in.at(0);
  Device to = ctx.device.with_memory(param_kind(p, "memory_kind"));
  if (x.device() == to) return {x};  // already there: JAX's device_put is then a no-op
  Tensor y = x.to(to);
  if (x.device().same_device(to)) Allocator::instance().count_transfer(x.device(), to, x.nbytes());
  return {y};
}

}  // namespace

Value device_put(Value x, MemoryKind to, MemoryKind from) {
  if (!x.builder()) throw_bad_input("device_put of a literal", "put a traced value");
  return x.builder()->bind1("device_put", {x}, {{"memory_kind", std::string(memory_kind_name(to))},
                                                {"src_memory_kind", std::string(memory_kind_name(from))}});
}

bool is_offload(const Eqn& e) {
  return e.prim && e.prim->name == "device_put" && param_kind(e.params, "memory_kind") != MemoryKind::device;
}

void register_device_put_primitive() {
  Primitive d = primitive_of("device_put", 0, {"memory_kind", "src_memory_kind"});
  d.shape = [](const std::vector<AType>& in, const Params& p) {
    if (in.size() != 1) throw_bad_input(cat("device_put takes 1 operand, got ", in.size()));
    param_kind(p, "memory_kind");  // unknown kinds: bad input now, not when it runs
    param_kind(p, "src_memory_kind");
    return std::vector<AType>{in[0]};
  };
  d.cpu = device_put_cpu;  // the CUDA impl: engine/cuda/offload_cuda.cc
  // The transpose of a transfer is the reverse transfer (JAX's _device_put_transpose).
  d.vjp = [](const VjpArgs& a, const Params& p) {
    std::vector<std::optional<Value>> r(1);
    if (a.wants(0)) r[0] = device_put(a.ct(0), param_kind(p, "src_memory_kind"), param_kind(p, "memory_kind"));
    return r;
  };
  d.batch = [](const std::vector<Value>& in, const std::vector<std::optional<int>>& axes, const Params& p) {
    return std::make_pair(in[0].builder()->bind("device_put", in, p), std::vector<std::optional<int>>{axes[0]});
  };
  register_primitive(std::move(d));
}

}  // namespace tandem
