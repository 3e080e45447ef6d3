// The LSTM's value types (jax.experimental.rnn semantics): its shape configuration and the
// packed cuDNN weight layout (where each matrix and bias sits, get_num_params_in_lstm).
// A lower layer than the lstm primitive (engine/prims/lstm.h), so the CPU and cuDNN kernels
// can take a config without including engine/prims.
#pragma once
#include <cstdint>
#include <vector>

namespace tandem {

struct LstmConfig {
  int64_t batch = 1, seq = 1, input = 1, hidden = 1, layers = 1;
  bool bidirectional = false;
  int64_t dirs() const { return bidirectional ? 2 : 1; }
  int64_t pseudo_layers() const { return layers * dirs(); }
  int64_t layer_input(int64_t p) const { return p < dirs() ? input : dirs() * hidden; }
};

// Where one matrix or bias sits in the flat weight vector: rows x cols at offset.
struct LstmWeightSlot {
  int64_t offset = 0, rows = 0, cols = 1;
};
struct LstmWeightLayout {
  std::vector<LstmWeightSlot> w_ih, w_hh, b_ih, b_hh;  // by pseudo-layer fwd0, rev0, fwd1, ...
  int64_t total = 0;
};
LstmWeightLayout lstm_weight_layout(int64_t input, int64_t hidden, int64_t layers, bool bidirectional);
int64_t get_num_params_in_lstm(int64_t input, int64_t hidden, int64_t layers, bool bidirectional);

// The CPU kernel's reserve (lstm_fwd in training mode; engine/prims/lstm.h), flat f32, where
// each saved piece starts: per layer l >= 1 its input [B, T, D*H] (layer 0's input is x, an
// operand of lstm_bwd, so it is not copied); per pseudo-layer the activated gates
// [T(step), B, 4H] and the h and c states [T+1(step), B, H] (row 0 = h0, c0).
struct LstmReserveLayout {
  std::vector<int64_t> layer_in, gates, h, c;  // offsets; layer_in[0] unused (= -1)
  int64_t total = 0;                            // floats
};
LstmReserveLayout lstm_reserve_layout(const LstmConfig& c);

}  // namespace tandem
