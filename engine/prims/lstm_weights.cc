// LSTM weight init and unpacking (the packed layout itself: engine/core/lstm_config.cc),
// and the operand and seq_lengths checks every LSTM backend shares.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "engine/core/error.h"
#include "engine/prims/lstm.h"

namespace tandem {

Tensor init_lstm_weight(uint64_t seed, int64_t input, int64_t hidden, int64_t layers, bool bidi) {
  int64_t n = get_num_params_in_lstm(input, hidden, layers, bidi);
  const double k = 1.0 / std::sqrt(double(hidden));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-k, k);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = u(rng);
  return Tensor::from_f64(v, {n}, DType::f32);
}

LstmWeights unpack_lstm_weights(const Tensor& w, int64_t input, int64_t hidden, int64_t layers, bool bidi) {
  LstmWeightLayout lay = lstm_weight_layout(input, hidden, layers, bidi);
  if (w.rank() != 1 || w.numel() != lay.total)
    throw_bad_input(cat("unpack_lstm_weights: weights are ", w.type().str(), ", expected [", lay.total, "]"),
                    "use get_num_params_in_lstm(input, hidden, layers, bidirectional)");
  Tensor host = w.to(Device::cpu());
  auto take = [&](const LstmWeightSlot& s) {
    Shape shape = s.cols == 1 ? Shape{s.rows} : Shape{s.rows, s.cols};
    Tensor t = Tensor::empty(shape, host.dtype());
    size_t es = size_t(dtype_size(host.dtype()));
    std::memcpy(t.raw(), static_cast<const char*>(host.raw()) + s.offset * es, t.nbytes());
    return t;
  };
  LstmWeights r;
  for (size_t p = 0; p < lay.w_ih.size(); ++p) {
    r.w_ih.push_back(take(lay.w_ih[p]));
    r.w_hh.push_back(take(lay.w_hh[p]));
    r.b_ih.push_back(take(lay.b_ih[p]));
    r.b_hh.push_back(take(lay.b_hh[p]));
  }
  return r;
}

LstmConfig lstm_config(const std::vector<AType>& in, const Params& p) {
  if (in.size() < 5) throw_bad_input(cat("lstm: expected x, h0, c0, w, seq_lengths; got ", in.size(), " operands"));
  LstmConfig c;
  c.input = p.get_int("input_size");
  c.hidden = p.get_int("hidden_size");
  c.layers = p.get_int("num_layers");
  c.bidirectional = p.get_bool("bidirectional", false);
  if (c.input < 1 || c.hidden < 1 || c.layers < 1)
    throw_bad_input("lstm: input_size, hidden_size and num_layers must be >= 1");
  const AType &x = in[0], &h0 = in[1], &c0 = in[2], &w = in[3], &lens = in[4];
  if (x.rank() != 3 || x.shape[2] != c.input)
    throw_bad_input(cat("lstm: x is ", x.str(), ", expected [batch, seq, ", c.input, "]"),
                    "x is batch-first: [batch, max_seq_length, input_size]");
  c.batch = x.shape[0];
  c.seq = x.shape[1];
  Shape state{c.pseudo_layers(), c.batch, c.hidden};
  for (const AType* t : {&x, &h0, &c0, &w})
    if (t->dtype != DType::f32)
      throw_bad_input(cat("lstm: operands must be f32, got ", t->str()), "jax.experimental.rnn supports float32 only");
  if (h0.shape != state || c0.shape != state)
    throw_bad_input(cat("lstm: h0 ", h0.str(), " and c0 ", c0.str(), " must be [", shape_str(state), "]"),
                    "[num_layers * num_directions, batch, hidden_size]");
  int64_t n = get_num_params_in_lstm(c.input, c.hidden, c.layers, c.bidirectional);
  if (w.rank() != 1 || w.shape[0] != n)
    throw_bad_input(cat("lstm: weights are ", w.str(), ", expected f32[", n, "]"),
                    "get_num_params_in_lstm(input, hidden, layers, bidirectional) gives the count");
  if (lens.dtype != DType::i32 || lens.shape != Shape{c.batch})
    throw_bad_input(cat("lstm: seq_lengths is ", lens.str(), ", expected i32[", c.batch, "]"),
                    "seq_lengths can only be int32, one per batch row");
  lstm_allow_tf32(p.get_string("precision", "HIGHEST"));  // throws on an unknown precision
  return c;
}

Params lstm_params(const LstmConfig& c, const std::string& precision, bool training) {
  Params p{{"input_size", c.input}, {"hidden_size", c.hidden}, {"num_layers", c.layers},
           {"bidirectional", c.bidirectional}, {"precision", precision}};
  if (training) p.set("training", true);  // absent = inference, so existing programs read alike
  return p;
}

namespace {
std::function<int64_t(const LstmConfig&, bool)>& backend_sizer() {
  static std::function<int64_t(const LstmConfig&, bool)> f;
  return f;
}
}  // namespace

void set_lstm_backend_reserve_sizer(std::function<int64_t(const LstmConfig&, bool)> floats) {
  backend_sizer() = std::move(floats);
}

int64_t lstm_reserve_floats(const LstmConfig& c, const std::string& precision) {
  int64_t n = lstm_reserve_layout(c).total;
  if (backend_sizer()) n = std::max(n, backend_sizer()(c, lstm_allow_tf32(precision)));
  return n;
}

std::vector<int32_t> checked_lstm_lengths(const Tensor& lens, const LstmConfig& c) {
  Tensor h = lens.to(Device::cpu());
  std::vector<int32_t> v(h.data<int32_t>(), h.data<int32_t>() + h.numel());
  for (int64_t b = 0; b < int64_t(v.size()); ++b)
    if (v[b] < 1 || v[b] > c.seq)
      throw_bad_input(cat("lstm: seq_lengths[", b, "] = ", v[b], " is outside [1, ", c.seq, "]"),
                      "tandem rejects length 0 (as cuDNN does): drop empty sequences from the batch");
  return v;
}

bool lstm_allow_tf32(const std::string& precision) {
  if (precision == "HIGHEST") return false;
  if (precision == "HIGH" || precision.empty()) return true;
  if (precision == "DEFAULT")
    throw_unsupported("lstm: precision DEFAULT (bfloat16) is not implemented for LSTM",
                      "use HIGHEST (f32) or HIGH (TF32 allowed)");
  throw_bad_input(cat("lstm: unknown precision '", precision, "'"), "precision is HIGHEST, HIGH or DEFAULT");
}

}  // namespace tandem
