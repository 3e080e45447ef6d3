// Helpers shared by the CUDA impls of the primitive families (see cuda_prims.h).
#include "engine/cuda/cuda_prims.h"

#include "engine/cuda/cuda_device.h"

namespace tandem::cuda_impl {

std::vector<AType> checked_out_types(const std::string& prim, const std::vector<Tensor>& in, const Params& p) {
  std::vector<AType> types;
  types.reserve(in.size());
  for (const Tensor& t : in) types.push_back(t.type());
  return primitive(prim).shape(types, p);
}

Device current_device(const EvalContext& ctx) {
  use_cuda_device(ctx.device.index);
  return ctx.device;
}

void attach_cuda_impl(const std::string& prim, Impl impl) {
  mutable_primitive(prim).cuda = std::move(impl);
}

}  // namespace tandem::cuda_impl
