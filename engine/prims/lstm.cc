// lstm_fwd / lstm_bwd primitives: shape rules and the CPU impls (engine/cpu/lstm_cpu.cc).
// The CUDA impls (cuDNN) are attached by register_cuda_impls (engine/cuda/lstm_cudnn.cc).
#include <algorithm>
#include <cstring>

#include "engine/core/error.h"
#include "engine/cpu/lstm_cpu.h"
#include "engine/prims/primitive_of.h"
#include "engine/prims/lstm.h"

namespace tandem {
namespace {

std::vector<AType> types_of(const std::vector<Tensor>& in) {
  std::vector<AType> t;
  for (const Tensor& x : in) t.push_back(x.type());
  return t;
}

AType reserve_type(const LstmConfig& c, const Params& p) {
  return AType{{lstm_reserve_floats(c, p.get_string("precision", "HIGHEST"))}, DType::f32};
}

std::vector<AType> fwd_shape(const std::vector<AType>& in, const Params& p) {
  if (in.size() != 5) throw_bad_input(cat("lstm_fwd takes 5 operands, got ", in.size()));
  LstmConfig c = lstm_config(in, p);
  std::vector<AType> out{AType{{c.batch, c.seq, c.dirs() * c.hidden}, DType::f32}, in[1], in[2]};
  if (p.get_bool("training", false)) out.push_back(reserve_type(c, p));
  return out;
}

// lstm_bwd(dy, dh_n, dc_n, x, h0, c0, w, seq_lengths, y, reserve)
std::vector<AType> bwd_shape(const std::vector<AType>& in, const Params& p) {
  if (in.size() != 10)
    throw_bad_input(cat("lstm_bwd takes 10 operands, got ", in.size()),
                    "lstm_bwd(dy, dh_n, dc_n, x, h0, c0, w, seq_lengths, y, reserve): y and reserve "
                    "come from lstm_fwd with training = true");
  std::vector<AType> fwd_in(in.begin() + 3, in.begin() + 8);
  Params tp = p;
  tp.set("training", true);
  std::vector<AType> out = fwd_shape(fwd_in, tp);
  const char* what[] = {"cotangent dy", "cotangent dh_n", "cotangent dc_n"};
  for (int i = 0; i < 3; ++i)
    if (in[size_t(i)] != out[size_t(i)])
      throw_bad_input(cat("lstm_bwd: ", what[i], " is ", in[size_t(i)].str(), ", expected ", out[size_t(i)].str()),
                      "dy, dh_n, dc_n have the types of y, h_n, c_n");
  if (in[8] != out[0] || in[9] != out[3])
    throw_bad_input(cat("lstm_bwd: y ", in[8].str(), " and reserve ", in[9].str(), " should be ",
                        out[0].str(), " and ", out[3].str()),
                    "pass lstm_bwd the y and reserve of lstm_fwd (training = true) on the same operands");
  return {in[3], in[4], in[5], in[6]};
}

std::vector<Tensor> fwd_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  std::vector<AType> t = fwd_shape(types_of(in), p);
  LstmConfig c = lstm_config(types_of(in), p);
  std::vector<int32_t> lens = checked_lstm_lengths(in[4], c);
  Tensor y = Tensor::zeros(t[0].shape, DType::f32), hn = Tensor::zeros(t[1].shape, DType::f32),
         cn = Tensor::zeros(t[2].shape, DType::f32);
  const bool training = t.size() == 4;
  Tensor reserve;
  cpu::LstmSaved saved;
  if (training) {
    // The kernel writes every float of its layout; a longer reserve (sized for cuDNN too)
    // has its tail zeroed so that the output is fully defined.
    reserve = Tensor::empty(t[3].shape, DType::f32);
    const int64_t used = lstm_reserve_layout(c).total;
    std::fill(reserve.data<float>() + used, reserve.data<float>() + reserve.numel(), 0.0f);
    saved = cpu::lstm_saved_views(c, reserve.data<float>(), in[0].data<float>());
  }
  if (c.batch * c.seq > 0)
    cpu::lstm_forward(c, in[0].data<float>(), in[1].data<float>(), in[2].data<float>(), in[3].data<float>(),
                      lens.data(), y.data<float>(), hn.data<float>(), cn.data<float>(), training ? &saved : nullptr);
  else if (training) std::fill(reserve.data<float>(), reserve.data<float>() + reserve.numel(), 0.0f);
  if (training) return {y, hn, cn, reserve};
  return {y, hn, cn};
}

// Reads the reserve the training forward wrote; never re-runs the forward.
std::vector<Tensor> bwd_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  bwd_shape(types_of(in), p);
  std::vector<Tensor> f(in.begin() + 3, in.begin() + 8);
  LstmConfig c = lstm_config(types_of(f), p);
  std::vector<int32_t> lens = checked_lstm_lengths(f[4], c);
  Tensor dx = Tensor::zeros(f[0].shape(), DType::f32), dh0 = Tensor::zeros(f[1].shape(), DType::f32),
         dc0 = Tensor::zeros(f[2].shape(), DType::f32), dw = Tensor::zeros(f[3].shape(), DType::f32);
  if (c.batch * c.seq > 0) {
    cpu::LstmSaved saved = cpu::lstm_saved_views(c, in[9].data<float>(), f[0].data<float>());
    cpu::lstm_backward(c, f[3].data<float>(), lens.data(), saved, in[0].data<float>(), in[1].data<float>(),
                       in[2].data<float>(), dx.data<float>(), dh0.data<float>(), dc0.data<float>(), dw.data<float>());
  }
  return {dx, dh0, dc0, dw};
}

}  // namespace

void register_lstm_primitives() {
  const std::vector<std::string> params = {"input_size", "hidden_size", "num_layers", "bidirectional", "precision",
                                           "training"};
  Primitive f = primitive_of("lstm_fwd", kFused, params, fwd_shape, fwd_cpu);
  // Differentiated, the forward runs in training mode so that its reserve is a residual (JAX's
  // lstm custom_vjp: the fwd rule keeps rnn_fwd's reserve_space for rnn_bwd).
  f.vjp_forward_params = [](const Params& p) {
    Params q = p;
    q.set("training", true);
    return q;
  };
  register_primitive(std::move(f));
  register_primitive(primitive_of("lstm_bwd", kFused, params, bwd_shape, bwd_cpu));
}

}  // namespace tandem
