// Builds the LSTM Program (scan over a cell) and the primitive-path programs.
#include "suites/common/lstm_program.h"

#include "engine/ir/builder.h"
#include "engine/passes/fold_scattered_adds.h"
#include "engine/passes/hoist_scan_accumulations.h"

namespace tandem {
namespace {

// body(W_hh[4H,H]; h[B,H], c[B,H]; xw_t[B,4H], m_t pred[B]) -> (h, c, y_t). xw_t is step t of
// the input projection x·W_ihᵀ + b, computed for every step before the scan as one GEMM (as
// the fast kernel and cuDNN do): only the recurrent GEMM is left per step.
Program cell_program(int64_t B, int64_t H, const std::string& precision) {
  const int64_t G = 4 * H;
  Builder bb;
  Value W_hh = bb.input({G, H}, DType::f32);
  Value h = bb.input({B, H}, DType::f32), c = bb.input({B, H}, DType::f32);
  Value xw = bb.input({B, G}, DType::f32), m = bb.input({B}, DType::pred);
  DotDims rows_by_rows{{1}, {1}, {}, {}};  // [B,K] · [G,K]^T
  Value a = xw + dot_general(h, W_hh, rows_by_rows, precision);
  auto gate = [&](int64_t k) { return slice(a, {0, k * H}, {B, (k + 1) * H}); };
  Value i = logistic(gate(0)), f = logistic(gate(1)), g = tanh(gate(2)), o = logistic(gate(3));
  Value c_new = f * c + i * g;
  Value h_new = o * tanh(c_new);
  Value live = broadcast_in_dim(m, {B, H}, {0});
  Value zero = broadcast_in_dim(bb.literal(0.0, DType::f32), {B, H}, {});
  return bb.build({select(live, h_new, h), select(live, c_new, c), select(live, h_new, zero)});
}

// A matrix slot as [rows, cols]; a bias slot (matrix = false) as [rows].
Value weight(Value w, const LstmWeightSlot& s, bool matrix = true) {
  Value v = slice(w, {s.offset}, {s.offset + s.rows * s.cols});
  return matrix ? reshape(v, {s.rows, s.cols}) : v;
}

}  // namespace

Program lstm_program(const LstmConfig& c, const std::string& precision) {
  const int64_t B = c.batch, T = c.seq, H = c.hidden, D = c.dirs(), S = c.pseudo_layers();
  LstmWeightLayout lay = lstm_weight_layout(c.input, c.hidden, c.layers, c.bidirectional);
  Builder b;
  Value x = b.input({B, T, c.input}, DType::f32);
  Value h0 = b.input({S, B, H}, DType::f32), c0 = b.input({S, B, H}, DType::f32);
  Value w = b.input({lay.total}, DType::f32), lens = b.input({B}, DType::i32);
  // mask[t, b] = t < seq_lengths[b]
  Value mask = compare(iota(b, DType::i32, {T, B}, 0), broadcast_in_dim(lens, {T, B}, {1}), "lt");
  Value seq = transpose(x, {1, 0, 2});  // time-major [T, B, In]
  std::vector<Value> h_n, c_n;
  for (int64_t l = 0; l < c.layers; ++l) {
    std::vector<Value> outs;
    for (int64_t d = 0; d < D; ++d) {
      const int64_t p = l * D + d;
      Program cell = cell_program(B, H, precision);
      Value bias = weight(w, lay.b_ih[p], false) + weight(w, lay.b_hh[p], false);
      // [T,B,In] · [4H,In]ᵀ → [T,B,4H], plus the bias: every step's input projection at once.
      Value xw = dot_general(seq, weight(w, lay.w_ih[p]), DotDims{{2}, {1}, {}, {}}, precision) +
                 broadcast_in_dim(bias, {T, B, 4 * H}, {2});
      Value hp = reshape(slice(h0, {p, 0, 0}, {p + 1, B, H}), {B, H});
      Value cp = reshape(slice(c0, {p, 0, 0}, {p + 1, B, H}), {B, H});
      std::vector<Value> r = scan(cell, {weight(w, lay.w_hh[p])}, {hp, cp}, {xw, mask}, T, /*reverse=*/d == 1);
      h_n.push_back(reshape(r[0], {1, B, H}));
      c_n.push_back(reshape(r[1], {1, B, H}));
      outs.push_back(r[2]);
    }
    seq = D == 1 ? outs[0] : concatenate(outs, 2);
  }
  Value hn = S == 1 ? h_n[0] : concatenate(h_n, 0);
  Value cn = S == 1 ? c_n[0] : concatenate(c_n, 0);
  return b.build({transpose(seq, {1, 0, 2}), hn, cn});
}

VjpProgram lstm_program_vjp(const LstmConfig& c, bool hoist_accumulations, bool fold_slices) {
  VjpProgram v = vjp(lstm_program(c), {true, true, true, true, false});
  if (fold_slices) v.backward = fold_scattered_adds(v.backward).program;
  return hoist_accumulations ? hoist_backward_accumulations(std::move(v)) : v;
}

Program lstm_program_joint(const LstmConfig& c, bool hoist_accumulations, bool fold_slices) {
  Program joint = vjp_joint(lstm_program(c));
  if (fold_slices) joint = fold_scattered_adds(joint).program;
  return hoist_accumulations ? hoist_scan_accumulations(joint).program : joint;
}

// The primitive path's inputs, in lstm_fwd's operand order: x, h0, c0, w, seq_lengths.
static std::vector<Value> lstm_fwd_inputs(Builder& b, const LstmConfig& c) {
  const int64_t S = c.pseudo_layers();
  return {b.input({c.batch, c.seq, c.input}, DType::f32), b.input({S, c.batch, c.hidden}, DType::f32),
          b.input({S, c.batch, c.hidden}, DType::f32),
          b.input({get_num_params_in_lstm(c.input, c.hidden, c.layers, c.bidirectional)}, DType::f32),
          b.input({c.batch}, DType::i32)};
}

Program lstm_fwd_program(const LstmConfig& c, const std::string& precision) {
  Builder b;
  return b.build(b.bind("lstm_fwd", lstm_fwd_inputs(b, c), lstm_params(c, precision)));
}

Program lstm_train_program(const LstmConfig& c, const std::string& precision) {
  const int64_t S = c.pseudo_layers();
  Builder b;
  const std::vector<Value> in = lstm_fwd_inputs(b, c);
  const Value &x = in[0], &h0 = in[1], &c0 = in[2], &w = in[3], &lens = in[4];
  Value dy = b.input({c.batch, c.seq, c.dirs() * c.hidden}, DType::f32);
  Value dhn = b.input({S, c.batch, c.hidden}, DType::f32), dcn = b.input({S, c.batch, c.hidden}, DType::f32);
  Params p = lstm_params(c, precision, /*training=*/true);
  std::vector<Value> out = b.bind("lstm_fwd", in, p);  // y, h_n, c_n, reserve
  std::vector<Value> g = b.bind("lstm_bwd", {dy, dhn, dcn, x, h0, c0, w, lens, out[0], out[3]}, p);
  out.resize(3);  // the reserve stays inside the program
  out.insert(out.end(), g.begin(), g.end());
  return b.build(out);
}

}  // namespace tandem
