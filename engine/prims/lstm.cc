// lstm_fwd / lstm_bwd primitives: shape rules and the CPU impls (engine/cpu/lstm_cpu.cc).
// The CUDA impls (cuDNN) are attached by register_cuda_impls (engine/cuda/lstm_cudnn.cc).
#include "engine/core/error.h"
#include "engine/cpu/lstm_cpu.h"
#include "engine/ir/primitive.h"
#include "engine/prims/lstm.h"

namespace tandem {
namespace {

std::vector<AType> types_of(const std::vector<Tensor>& in) {
  std::vector<AType> t;
  for (const Tensor& x : in) t.push_back(x.type());
  return t;
}

std::vector<AType> fwd_shape(const std::vector<AType>& in, const Params& p) {
  if (in.size() != 5) throw_bad_input(cat("lstm_fwd takes 5 operands, got ", in.size()));
  LstmConfig c = lstm_config(in, p);
  return {AType{{c.batch, c.seq, c.dirs() * c.hidden}, DType::f32}, in[1], in[2]};
}

// lstm_bwd(dy, dh_n, dc_n, x, h0, c0, w, seq_lengths)
std::vector<AType> bwd_shape(const std::vector<AType>& in, const Params& p) {
  if (in.size() != 8) throw_bad_input(cat("lstm_bwd takes 8 operands, got ", in.size()));
  std::vector<AType> fwd_in(in.begin() + 3, in.end());
  std::vector<AType> out = fwd_shape(fwd_in, p);
  for (int i = 0; i < 3; ++i)
    if (in[size_t(i)] != out[size_t(i)])
      throw_bad_input(cat("lstm_bwd: cotangent ", i, " is ", in[size_t(i)].str(), ", expected ",
                          out[size_t(i)].str()),
                      "dy, dh_n, dc_n have the types of y, h_n, c_n");
  return {in[3], in[4], in[5], in[6]};
}

std::vector<Tensor> fwd_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  std::vector<AType> t = fwd_shape(types_of(in), p);
  LstmConfig c = lstm_config(types_of(in), p);
  std::vector<int32_t> lens = checked_lstm_lengths(in[4], c);
  Tensor y = Tensor::zeros(t[0].shape, DType::f32), hn = Tensor::zeros(t[1].shape, DType::f32),
         cn = Tensor::zeros(t[2].shape, DType::f32);
  if (c.batch * c.seq > 0)
    cpu::lstm_forward(c, in[0].data<float>(), in[1].data<float>(), in[2].data<float>(),
                      in[3].data<float>(), lens.data(), y.data<float>(), hn.data<float>(),
                      cn.data<float>(), nullptr);
  return {y, hn, cn};
}

std::vector<Tensor> bwd_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  bwd_shape(types_of(in), p);
  std::vector<Tensor> f(in.begin() + 3, in.end());
  LstmConfig c = lstm_config(types_of(f), p);
  std::vector<int32_t> lens = checked_lstm_lengths(f[4], c);
  Tensor dx = Tensor::zeros(f[0].shape(), DType::f32), dh0 = Tensor::zeros(f[1].shape(), DType::f32),
         dc0 = Tensor::zeros(f[2].shape(), DType::f32), dw = Tensor::zeros(f[3].shape(), DType::f32);
  if (c.batch * c.seq > 0) {
    Tensor y = Tensor::empty({c.batch, c.seq, c.dirs() * c.hidden}, DType::f32);
    Tensor hn = Tensor::empty(f[1].shape(), DType::f32), cn = Tensor::empty(f[2].shape(), DType::f32);
    cpu::LstmSaved saved;
    cpu::lstm_forward(c, f[0].data<float>(), f[1].data<float>(), f[2].data<float>(),
                      f[3].data<float>(), lens.data(), y.data<float>(), hn.data<float>(),
                      cn.data<float>(), &saved);
    cpu::lstm_backward(c, f[3].data<float>(), lens.data(), saved, in[0].data<float>(),
                       in[1].data<float>(), in[2].data<float>(), dx.data<float>(),
                       dh0.data<float>(), dc0.data<float>(), dw.data<float>());
  }
  return {dx, dh0, dc0, dw};
}

}  // namespace

void register_lstm_primitives() {
  Primitive f;
  f.name = "lstm_fwd";
  f.traits = kFused;
  f.shape = fwd_shape;
  f.cpu = fwd_cpu;
  register_primitive(std::move(f));
  Primitive b;
  b.name = "lstm_bwd";
  b.traits = kFused;
  b.shape = bwd_shape;
  b.cpu = bwd_cpu;
  register_primitive(std::move(b));
}

}  // namespace tandem
