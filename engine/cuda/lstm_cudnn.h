// The LSTM on CUDA through cuDNN 9's RNN API (the path jax.experimental.rnn lowers to): cudnnSetRNNDescriptor_v8 (LSTM,
// double bias, padded IO), batch-major unpacked data descriptors with seq lengths on the host and the device,
// cudnnRNNForward (inference mode, or training mode writing lstm_fwd's reserve output), and lstm_bwd as
// cudnnRNNBackwardData_v8 then cudnnRNNBackwardWeights_v8 on a copy of that reserve (ADD semantics: dw is zeroed first)
// — the forward is never re-run. Descriptors and workspaces are cached by shape; the packed weight layout is verified
// with cudnnGetRNNWeightParams. HIGHEST → CUDNN_FMA_MATH (no TF32); HIGH or "" → CUDNN_DEFAULT_MATH (TF32 allowed);
// DEFAULT (bf16) → not implemented.
#pragma once
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ir/ir.h"

namespace tandem {

// Attaches the cuDNN impls to lstm_fwd / lstm_bwd and the reserve sizer (cuDNN's reserve
// space, engine/prims/lstm.h) — a no-op when built without cuDNN.
void register_lstm_cudnn_impls();

// The math type a precision selects, by its cuDNN name (for records).
std::string lstm_cudnn_math_type(const std::string& precision);

namespace cuda_impl {
// operands as lstm_fwd / lstm_bwd (engine/prims/lstm.h), all on one CUDA device.
std::vector<Tensor> lstm_fwd_cudnn(const std::vector<Tensor>& in, const Params& p);
std::vector<Tensor> lstm_bwd_cudnn(const std::vector<Tensor>& in, const Params& p);
// Backward that adds its weight gradient into dw (cuDNN's CUDNN_WGRAD_MODE_ADD), for the
// accumulation test; returns dx, dh0, dc0.
std::vector<Tensor> lstm_bwd_cudnn_accumulate(const std::vector<Tensor>& in, const Params& p, Tensor& dw);
}  // namespace cuda_impl

}  // namespace tandem
