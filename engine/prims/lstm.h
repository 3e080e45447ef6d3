// The LSTM as the engine sees it (jax.experimental.rnn semantics): its configuration, the
// packed cuDNN weight layout (get_num_params_in_lstm, init_lstm_weight, unpack_lstm_weights),
// the seq_lengths policy, and the lstm_fwd / lstm_bwd primitives' operands.
//
// lstm_fwd(x[B,T,I] f32, h0[S,B,H], c0[S,B,H], w[P], seq_lengths[B] i32) -> y[B,T,D*H], h_n, c_n
//   and, with training = true, a fourth output: reserve[R] f32 (JAX's rnn_fwd reserve_space)
// lstm_bwd(dy, dh_n, dc_n, x, h0, c0, w, seq_lengths, y, reserve) -> dx, dh0, dc0, dw
//   (S = num_layers*D, D = 2 if bidirectional.) The reserve is what the backward needs from the
//   forward — the CPU kernel's saved gates and states (lstm_reserve_layout), cuDNN's reserve
//   space on CUDA — so lstm_bwd never re-runs the forward. Its contents are opaque and
//   backend-specific: pass lstm_bwd the reserve of a forward on the same device. The vjp pass
//   linearizes lstm_fwd in training mode (Primitive::vjp_forward_params), so the reserve is a
//   residual that remat policies save or recompute like any other.
// params: input_size, hidden_size, num_layers, bidirectional, precision ("HIGHEST" default:
// f32 math; "HIGH"/"" allow TF32 on CUDA; "DEFAULT" = bf16, not implemented, as in JAX),
// training (false default: inference, three outputs).
// Length policy: every seq_length must lie in [1, T]; 0 is rejected with a clear error (cuDNN
// rejects it too, and JAX's reference would read step -1).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/lstm_config.h"
#include "engine/core/tensor.h"
#include "engine/ir/ir.h"

namespace tandem {

// U(-k, k), k = 1/sqrt(hidden), f32, from a seeded generator.
Tensor init_lstm_weight(uint64_t seed, int64_t input, int64_t hidden, int64_t layers, bool bidirectional);

struct LstmWeights {  // copies, by pseudo-layer: W_ih [4H, In], W_hh [4H, H], biases [4H]
  std::vector<Tensor> w_ih, w_hh, b_ih, b_hh;
};
LstmWeights unpack_lstm_weights(const Tensor& w, int64_t input, int64_t hidden, int64_t layers, bool bidirectional);

// The config from the primitive's params and x's shape; checks every operand's shape and
// dtype (a bad-input error with a hint otherwise). `in` starts with x, h0, c0, w, seq_lengths.
LstmConfig lstm_config(const std::vector<AType>& in, const Params& p);
Params lstm_params(const LstmConfig& c, const std::string& precision = "HIGHEST", bool training = false);
// The reserve's length in floats: the CPU layout's, or more where the backend that registered
// a sizer (cuDNN: its reserve space for these sizes, when a GPU is present) needs more. So one
// reserve type serves both devices in a process, as JAX asks cuDNN in rnn_fwd's abstract eval.
int64_t lstm_reserve_floats(const LstmConfig& c, const std::string& precision);
void set_lstm_backend_reserve_sizer(std::function<int64_t(const LstmConfig&, bool allow_tf32)> floats);
// Host seq_lengths checked against the policy [1, T]; bad input names the row otherwise.
std::vector<int32_t> checked_lstm_lengths(const Tensor& lens_host, const LstmConfig& c);
// True when the precision permits TF32 (HIGH or empty); HIGHEST → false; DEFAULT throws
// unsupported (bf16 LSTM is not implemented); anything else is bad input.
bool lstm_allow_tf32(const std::string& precision);

}  // namespace tandem
