// The packed LSTM weight layout (cuDNN's, as jax.experimental.rnn documents it).
#include "engine/core/lstm_config.h"

namespace tandem {

LstmWeightLayout lstm_weight_layout(int64_t input, int64_t hidden, int64_t layers, bool bidi) {
  LstmConfig c{1, 1, input, hidden, layers, bidi};
  LstmWeightLayout l;
  const int64_t G = 4 * hidden;
  for (int64_t p = 0; p < c.pseudo_layers(); ++p) {  // all matrices first: W_ih^p, W_hh^p
    l.w_ih.push_back({l.total, G, c.layer_input(p)});
    l.total += G * c.layer_input(p);
    l.w_hh.push_back({l.total, G, hidden});
    l.total += G * hidden;
  }
  for (int64_t p = 0; p < c.pseudo_layers(); ++p) {  // then all biases: b_ih^p, b_hh^p
    l.b_ih.push_back({l.total, G, 1});
    l.total += G;
    l.b_hh.push_back({l.total, G, 1});
    l.total += G;
  }
  return l;
}

int64_t get_num_params_in_lstm(int64_t input, int64_t hidden, int64_t layers, bool bidi) {
  return lstm_weight_layout(input, hidden, layers, bidi).total;
}

}  // namespace tandem
