// The packed LSTM weight layout (cuDNN's, as jax.experimental.rnn documents it).
#include "engine/core/lstm_config.h"

#include "engine/core/error.h"

namespace tandem {
namespace {

// The parameter count with overflow-checked arithmetic, before any slot is built: a huge
// hidden size must be a clear error, not a signed overflow (a negative count in the message),
// and a huge layer count must not allocate a slot per layer before the weights are checked.
int64_t checked_param_count(const LstmConfig& c) {
  auto fail = [&] {
    throw_bad_input(cat("lstm: input ", c.input, ", hidden ", c.hidden, ", ", c.layers, " layer(s)",
                        c.bidirectional ? ", bidirectional" : "", " needs more than 2^63 weights"),
                    "hidden_size, num_layers and input_size must describe an LSTM that fits in memory");
  };
  if (c.input < 1 || c.hidden < 1 || c.layers < 1)
    throw_bad_input(cat("lstm: input ", c.input, ", hidden ", c.hidden, " and ", c.layers, " layer(s) must be >= 1"),
                    "every LSTM size is a positive integer");
  int64_t g = 0, pseudo = 0, first = 0, rest = 0, per_later = 0, total = 0;
  // Per pseudo-layer: G * (layer input + hidden) matrix entries + 2G biases, G = 4 * hidden.
  if (__builtin_mul_overflow(int64_t(4), c.hidden, &g) || __builtin_mul_overflow(c.layers, c.dirs(), &pseudo) ||
      __builtin_add_overflow(c.input, c.hidden + 2, &first) || __builtin_mul_overflow(first, g, &first) ||
      __builtin_mul_overflow(c.dirs() + 1, c.hidden, &per_later) ||
      __builtin_add_overflow(per_later, int64_t(2), &per_later) || __builtin_mul_overflow(per_later, g, &per_later) ||
      __builtin_mul_overflow(per_later, pseudo - c.dirs(), &rest) ||
      __builtin_mul_overflow(first, c.dirs(), &total) || __builtin_add_overflow(total, rest, &total))
    fail();
  return total;
}

}  // namespace

LstmWeightLayout lstm_weight_layout(int64_t input, int64_t hidden, int64_t layers, bool bidi) {
  LstmConfig c{1, 1, input, hidden, layers, bidi};
  const int64_t count = checked_param_count(c);  // throws before any arithmetic below could overflow
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
  TANDEM_CHECK(l.total == count, "the closed-form parameter count disagrees with the layout");
  return l;
}

LstmReserveLayout lstm_reserve_layout(const LstmConfig& c) {
  const int64_t B = c.batch, T = c.seq, H = c.hidden;
  const double approx = double(c.layers) * double(B) * double(T) * double(c.dirs()) * double(H) * 7.0;
  if (approx > 9.0e18)
    throw_bad_input(cat("lstm: the training reserve for batch ", B, ", ", T, " steps, hidden ", H, ", ",
                        c.layers, " layer(s) needs more than 2^63 floats"),
                    "a training-mode LSTM saves about 7*B*T*H floats per layer and direction");
  LstmReserveLayout r;
  r.layer_in.push_back(-1);
  for (int64_t l = 1; l < c.layers; ++l) {
    r.layer_in.push_back(r.total);
    r.total += B * T * c.dirs() * H;
  }
  for (int64_t p = 0; p < c.pseudo_layers(); ++p) {
    r.gates.push_back(r.total);
    r.total += T * B * 4 * H;
    r.h.push_back(r.total);
    r.total += (T + 1) * B * H;
    r.c.push_back(r.total);
    r.total += (T + 1) * B * H;
  }
  return r;
}

int64_t get_num_params_in_lstm(int64_t input, int64_t hidden, int64_t layers, bool bidi) {
  return checked_param_count(LstmConfig{1, 1, input, hidden, layers, bidi});
}

}  // namespace tandem
