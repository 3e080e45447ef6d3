// CUDA impls of scan, while and cond (lax.scan semantics, as engine/prims/scan.cc): the loop runs on the host, the body
// on the device through the context's run_program. Carries stay device tensors from step to step; each x_t is a
// device-to-device copy of a row of xs and each y_t is copied into its row of ys on the device — no per-step host round
// trip. checkpoint and checkpoint_name need nothing CUDA-specific: their registration (engine/prims/checkpoint.cc)
// already runs the body on the context's backend.
#include "engine/core/error.h"
#include "engine/core/check_cuda.h"
#include "engine/cuda/cuda_prims.h"
#include "engine/prims/cond.h"
#include "engine/prims/while_loop.h"

namespace tandem {
namespace {
using namespace cuda_impl;

// Row t of a device tensor whose axis 0 is the scan axis, as a new device tensor.
Tensor device_row(const Tensor& xs, int64_t t, Device d) {
  Tensor r = Tensor::empty(Shape(xs.shape().begin() + 1, xs.shape().end()), xs.dtype(), d);
  if (r.nbytes() > 0)
    CUDA_CHECK(cudaMemcpyAsync(r.raw(), static_cast<const char*>(xs.raw()) + t * r.nbytes(),
                               r.nbytes(), cudaMemcpyDeviceToDevice, 0));
  return r;
}

std::vector<Tensor> scan_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  std::vector<AType> out_types = checked_out_types("scan", in, p);
  Device d = current_device(ctx);
  const Program& body = *p.get_program("body");
  const size_t nc = size_t(p.get_int("num_consts")), nk = size_t(p.get_int("num_carry"));
  const int64_t length = p.get_int("length");
  const bool reverse = p.get_bool("reverse", false);
  std::vector<Tensor> carry(in.begin() + long(nc), in.begin() + long(nc + nk));
  std::vector<Tensor> ys;
  for (size_t i = nk; i < out_types.size(); ++i) ys.push_back(Tensor::empty(out_types[i].shape, out_types[i].dtype, d));
  for (int64_t step = 0; step < length; ++step) {
    int64_t t = reverse ? length - 1 - step : step;
    std::vector<Tensor> args(in.begin(), in.begin() + long(nc));
    args.insert(args.end(), carry.begin(), carry.end());
    for (size_t i = nc + nk; i < in.size(); ++i) args.push_back(device_row(in[i], t, d));
    std::vector<Tensor> out = ctx.run_program(body, args);
    for (size_t i = 0; i < nk; ++i) carry[i] = out[i];
    for (size_t i = 0; i < ys.size(); ++i) {
      const Tensor& y = out[nk + i];
      if (y.nbytes() > 0)
        CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(ys[i].raw()) + t * y.nbytes(), y.raw(),
                                   y.nbytes(), cudaMemcpyDeviceToDevice, 0));
    }
  }
  carry.insert(carry.end(), ys.begin(), ys.end());
  return carry;
}

// while: the same host-driven loop as the CPU's (engine/prims/while_loop.cc), cond and body
// on the device; each iteration copies the predicate's one byte back to decide.
std::vector<Tensor> while_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  checked_out_types("while", in, p);
  return run_while_loop(in, p, ctx, [](const Tensor& pred) {
    uint8_t host = 0;
    CUDA_CHECK(cudaMemcpy(&host, pred.raw(), 1, cudaMemcpyDeviceToHost));
    return host != 0;
  });
}

// cond: the CPU's choice of branch (engine/prims/cond.cc), the index's four bytes copied back.
std::vector<Tensor> cond_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  checked_out_types("cond", in, p);
  int32_t index = 0;
  CUDA_CHECK(cudaMemcpy(&index, in[0].raw(), sizeof index, cudaMemcpyDeviceToHost));
  return run_cond(in, p, ctx, index);
}

}  // namespace

void register_control_cuda_impls() {
  attach_cuda_impl("scan", scan_impl);
  attach_cuda_impl("while", while_impl);
  attach_cuda_impl("cond", cond_impl);
}

}  // namespace tandem
