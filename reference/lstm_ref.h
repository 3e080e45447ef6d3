// lstm_ref: jax.experimental.rnn's LSTM (double bias, gates i f g o, batch-first) in plain
// f64 loops, forward and a hand-written backward through time. Ragged seq_lengths: y is 0 at
// padded steps and h_n, c_n are the carry after step seq_length-1; the reverse direction runs
// each sequence backwards within its own length; layer l+1 reads concat(fwd, bwd) of layer l.
// Length policy (shared with the engine): every seq_length must be in [1, T]; 0 is rejected.
#pragma once
#include <cstdint>
#include <vector>

namespace tandem::ref {

struct LstmShape {
  int64_t batch = 1, seq = 1, input = 1, hidden = 1, layers = 1;
  bool bidirectional = false;
  int64_t dirs() const { return bidirectional ? 2 : 1; }
  int64_t pseudo_layers() const { return layers * dirs(); }
  // Width of pseudo-layer p's input: `input` in layer 0, dirs·hidden after.
  int64_t layer_input(int64_t p) const { return p < dirs() ? input : dirs() * hidden; }
};

// One weight or bias inside the flat weight vector: `rows` x `cols` row-major at `offset`.
struct LstmSlot {
  int64_t offset = 0, rows = 0, cols = 1;
};

// The packed layout: W_ih^p, W_hh^p for every pseudo-layer p (fwd0, rev0, fwd1, ...), then
// b_ih^p, b_hh^p for every p. W_ih^p is [4H, layer_input(p)], W_hh^p [4H, H], biases [4H].
struct LstmLayout {
  std::vector<LstmSlot> w_ih, w_hh, b_ih, b_hh;  // indexed by pseudo-layer
  int64_t total = 0;
};
LstmLayout lstm_layout(const LstmShape& s);

// Throws std::invalid_argument naming the batch row unless 1 <= lens[b] <= T for every b.
void check_lstm_lengths(const LstmShape& s, const std::vector<int64_t>& lens);

struct LstmOutputs {
  std::vector<double> y;         // [B, T, D*H]
  std::vector<double> h_n, c_n;  // [L*D, B, H]
};
// x [B,T,I], h0 and c0 [L*D,B,H], w [num_params], lens [B].
LstmOutputs lstm_forward(const LstmShape& s, const std::vector<double>& x, const std::vector<double>& h0,
                         const std::vector<double>& c0, const std::vector<double>& w, const std::vector<int64_t>& lens);

struct LstmGrads {
  std::vector<double> dx, dh0, dc0, dw;  // shapes of x, h0, c0, w
};
// Cotangents dy [B,T,D*H] (ignored at padded steps, where y is constant 0), dh_n, dc_n.
LstmGrads lstm_backward(const LstmShape& s, const std::vector<double>& x, const std::vector<double>& h0,
                        const std::vector<double>& c0, const std::vector<double>& w, const std::vector<int64_t>& lens,
                        const std::vector<double>& dy, const std::vector<double>& dh_n,
                        const std::vector<double>& dc_n);

}  // namespace tandem::ref
