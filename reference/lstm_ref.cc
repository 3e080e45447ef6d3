// lstm_ref: plain loops in f64; the backward replays the forward's saved steps in reverse.
#include "reference/lstm_ref.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace tandem::ref {
namespace {

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// Everything one step of one sequence needs for its backward.
struct Step {
  int64_t t = 0;                     // time index the step reads and writes
  std::vector<double> h_prev, c_prev;  // [H]
  std::vector<double> i, f, g, o, c;   // [H] activated gates and the new cell
};

// Runs pseudo-layer p over its input seq `in` [B,T,In]; writes h into out [B,T,D*H] at
// column offset dir*H; returns the per-batch-row steps (in execution order).
std::vector<std::vector<Step>> run_pseudo_layer(const LstmShape& s, const LstmLayout& lay, int64_t p,
                                                const std::vector<double>& in, const std::vector<double>& h0,
                                                const std::vector<double>& c0, const std::vector<double>& w,
                                                const std::vector<int64_t>& lens, std::vector<double>& out,
                                                std::vector<double>& h_n, std::vector<double>& c_n) {
  const int64_t B = s.batch, T = s.seq, H = s.hidden, In = s.layer_input(p);
  const int64_t DH = s.dirs() * H, dir = p % s.dirs();
  const LstmSlot &wi = lay.w_ih[p], &wh = lay.w_hh[p], &bi = lay.b_ih[p], &bh = lay.b_hh[p];
  std::vector<std::vector<Step>> steps(static_cast<size_t>(B));
  for (int64_t b = 0; b < B; ++b) {
    std::vector<double> h(h0.begin() + (p * B + b) * H, h0.begin() + (p * B + b + 1) * H);
    std::vector<double> c(c0.begin() + (p * B + b) * H, c0.begin() + (p * B + b + 1) * H);
    for (int64_t k = 0; k < lens[b]; ++k) {
      Step st;
      st.t = dir == 0 ? k : lens[b] - 1 - k;  // reverse: flipped within this row's length
      st.h_prev = h;
      st.c_prev = c;
      const double* xt = &in[(b * T + st.t) * In];
      std::vector<double> a(size_t(4 * H));  // pre-activations, gates stacked i f g o
      for (int64_t r = 0; r < 4 * H; ++r) {
        double acc = w[bi.offset + r] + w[bh.offset + r];
        for (int64_t j = 0; j < In; ++j) acc += w[wi.offset + r * In + j] * xt[j];
        for (int64_t j = 0; j < H; ++j) acc += w[wh.offset + r * H + j] * h[j];
        a[r] = acc;
      }
      st.i.resize(H); st.f.resize(H); st.g.resize(H); st.o.resize(H); st.c.resize(H);
      for (int64_t j = 0; j < H; ++j) {
        st.i[j] = sigmoid(a[j]);
        st.f[j] = sigmoid(a[H + j]);
        st.g[j] = std::tanh(a[2 * H + j]);
        st.o[j] = sigmoid(a[3 * H + j]);
        c[j] = st.f[j] * c[j] + st.i[j] * st.g[j];
        h[j] = st.o[j] * std::tanh(c[j]);
        st.c[j] = c[j];
        out[(b * T + st.t) * DH + dir * H + j] = h[j];
      }
      steps[b].push_back(std::move(st));
    }
    for (int64_t j = 0; j < H; ++j) {
      h_n[(p * B + b) * H + j] = h[j];
      c_n[(p * B + b) * H + j] = c[j];
    }
  }
  return steps;
}

void check_sizes(const LstmShape& s, const std::vector<double>& x, const std::vector<double>& h0,
                 const std::vector<double>& c0, const std::vector<double>& w, const std::vector<int64_t>& lens) {
  const int64_t state = s.pseudo_layers() * s.batch * s.hidden;
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("lstm_ref: " + what);
  };
  need(s.batch >= 0 && s.seq >= 0 && s.input >= 1 && s.hidden >= 1 && s.layers >= 1,
       "sizes must be batch, seq >= 0 and input, hidden, layers >= 1");
  need(int64_t(x.size()) == s.batch * s.seq * s.input, "x is not [B,T,I]");
  need(int64_t(h0.size()) == state && int64_t(c0.size()) == state, "h0/c0 are not [L*D,B,H]");
  need(int64_t(w.size()) == lstm_layout(s).total, "weight count differs from the layout");
  check_lstm_lengths(s, lens);
}

}  // namespace

LstmLayout lstm_layout(const LstmShape& s) {
  LstmLayout l;
  const int64_t P = s.pseudo_layers(), G = 4 * s.hidden;
  for (int64_t p = 0; p < P; ++p) {
    l.w_ih.push_back({l.total, G, s.layer_input(p)});
    l.total += G * s.layer_input(p);
    l.w_hh.push_back({l.total, G, s.hidden});
    l.total += G * s.hidden;
  }
  for (int64_t p = 0; p < P; ++p) {
    l.b_ih.push_back({l.total, G, 1});
    l.total += G;
    l.b_hh.push_back({l.total, G, 1});
    l.total += G;
  }
  return l;
}

void check_lstm_lengths(const LstmShape& s, const std::vector<int64_t>& lens) {
  if (int64_t(lens.size()) != s.batch)
    throw std::invalid_argument("lstm_ref: seq_lengths must have one entry per batch row");
  for (int64_t b = 0; b < s.batch; ++b)
    if (lens[b] < 1 || lens[b] > s.seq)
      throw std::invalid_argument("lstm_ref: seq_lengths[" + std::to_string(b) + "] = " + std::to_string(lens[b]) +
                                  " is outside [1, " + std::to_string(s.seq) + "]");
}

LstmOutputs lstm_forward(const LstmShape& s, const std::vector<double>& x,
                         const std::vector<double>& h0, const std::vector<double>& c0,
                         const std::vector<double>& w, const std::vector<int64_t>& lens) {
  check_sizes(s, x, h0, c0, w, lens);
  LstmLayout lay = lstm_layout(s);
  const int64_t D = s.dirs(), BT = s.batch * s.seq;
  LstmOutputs o;
  o.h_n.assign(h0.size(), 0.0);
  o.c_n.assign(c0.size(), 0.0);
  std::vector<double> in = x;
  for (int64_t l = 0; l < s.layers; ++l) {
    std::vector<double> out(size_t(BT * D * s.hidden), 0.0);
    for (int64_t d = 0; d < D; ++d) run_pseudo_layer(s, lay, l * D + d, in, h0, c0, w, lens, out, o.h_n, o.c_n);
    in = std::move(out);
  }
  o.y = std::move(in);
  return o;
}

LstmGrads lstm_backward(const LstmShape& s, const std::vector<double>& x, const std::vector<double>& h0,
                        const std::vector<double>& c0, const std::vector<double>& w, const std::vector<int64_t>& lens,
                        const std::vector<double>& dy, const std::vector<double>& dh_n,
                        const std::vector<double>& dc_n) {
  check_sizes(s, x, h0, c0, w, lens);
  const int64_t B = s.batch, T = s.seq, H = s.hidden, D = s.dirs(), DH = D * H;
  if (int64_t(dy.size()) != B * T * DH || dh_n.size() != h0.size() || dc_n.size() != c0.size())
    throw std::invalid_argument("lstm_ref: dy, dh_n or dc_n has the wrong size");
  LstmLayout lay = lstm_layout(s);
  // Forward again, keeping every layer's input and every step.
  std::vector<std::vector<double>> inputs{x};
  std::vector<std::vector<std::vector<Step>>> steps(size_t(s.pseudo_layers()));
  std::vector<double> hn(h0.size()), cn(c0.size());
  for (int64_t l = 0; l < s.layers; ++l) {
    std::vector<double> out(size_t(B * T * DH), 0.0);
    for (int64_t d = 0; d < D; ++d)
      steps[l * D + d] = run_pseudo_layer(s, lay, l * D + d, inputs.back(), h0, c0, w, lens, out, hn, cn);
    inputs.push_back(std::move(out));
  }
  LstmGrads g;
  g.dw.assign(w.size(), 0.0);
  g.dh0.assign(h0.size(), 0.0);
  g.dc0.assign(c0.size(), 0.0);
  std::vector<double> d_out = dy;  // cotangent of the current layer's output
  for (int64_t l = s.layers - 1; l >= 0; --l) {
    const std::vector<double>& in = inputs[l];
    const int64_t In = s.layer_input(l * D);
    std::vector<double> d_in(in.size(), 0.0);
    for (int64_t d = 0; d < D; ++d) {
      const int64_t p = l * D + d;
      const LstmSlot &wi = lay.w_ih[p], &wh = lay.w_hh[p], &bi = lay.b_ih[p], &bh = lay.b_hh[p];
      for (int64_t b = 0; b < B; ++b) {
        std::vector<double> dh(dh_n.begin() + (p * B + b) * H, dh_n.begin() + (p * B + b + 1) * H);
        std::vector<double> dc(dc_n.begin() + (p * B + b) * H, dc_n.begin() + (p * B + b + 1) * H);
        const std::vector<Step>& st = steps[p][b];
        for (int64_t k = int64_t(st.size()) - 1; k >= 0; --k) {
          const Step& q = st[k];
          std::vector<double> da(size_t(4 * H));
          for (int64_t j = 0; j < H; ++j) {
            dh[j] += d_out[(b * T + q.t) * DH + d * H + j];  // padded steps are never visited
            double tc = std::tanh(q.c[j]);
            double dcj = dc[j] + dh[j] * q.o[j] * (1 - tc * tc);
            da[j] = dcj * q.g[j] * q.i[j] * (1 - q.i[j]);
            da[H + j] = dcj * q.c_prev[j] * q.f[j] * (1 - q.f[j]);
            da[2 * H + j] = dcj * q.i[j] * (1 - q.g[j] * q.g[j]);
            da[3 * H + j] = dh[j] * tc * q.o[j] * (1 - q.o[j]);
            dc[j] = dcj * q.f[j];
          }
          const double* xt = &in[(b * T + q.t) * In];
          double* dxt = &d_in[(b * T + q.t) * In];
          std::vector<double> dh_prev(size_t(H), 0.0);
          for (int64_t r = 0; r < 4 * H; ++r) {
            g.dw[bi.offset + r] += da[r];
            g.dw[bh.offset + r] += da[r];
            for (int64_t j = 0; j < In; ++j) {
              g.dw[wi.offset + r * In + j] += da[r] * xt[j];
              dxt[j] += w[wi.offset + r * In + j] * da[r];
            }
            for (int64_t j = 0; j < H; ++j) {
              g.dw[wh.offset + r * H + j] += da[r] * q.h_prev[j];
              dh_prev[j] += w[wh.offset + r * H + j] * da[r];
            }
          }
          dh = std::move(dh_prev);
        }
        for (int64_t j = 0; j < H; ++j) {
          g.dh0[(p * B + b) * H + j] = dh[j];
          g.dc0[(p * B + b) * H + j] = dc[j];
        }
      }
    }
    d_out = std::move(d_in);
  }
  g.dx = std::move(d_out);
  return g;
}

}  // namespace tandem::ref
