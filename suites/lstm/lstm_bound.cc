// The LSTM's running error bound: every value is carried with a bound on its error (V), each
// operation adds its own rounding and propagates its operands' bounds first-order (plus the
// second-order product of bounds). The structure follows lstm_ref's loops; the numbers are
// bounds, not results.
#include "suites/lstm/lstm_bound.h"

#include <cmath>

#include "reference/lstm_ref.h"

namespace tandem {
namespace {

constexpr double u = kLstmU;
// sigmoid and tanh are within 4u absolute of the exact value (engine/cpu/lstm_cpu_test.cc
// holds the CPU kernel to it; libm's expf/tanhf are closer).
constexpr double kAct = 4;

struct V {
  double v = 0, e = 0;  // value and a bound on its error
};

V mul(V a, V b) {
  double v = a.v * b.v;
  return {v, std::abs(a.v) * b.e + std::abs(b.v) * a.e + a.e * b.e + u * std::abs(v)};
}
V add(V a, V b) { return {a.v + b.v, a.e + b.e + u * (std::abs(a.v) + std::abs(b.v))}; }
V one_minus(V a) { return {1 - a.v, a.e + u * (1 + std::abs(a.v))}; }
// f(a) with f' = d at a and |f''| ≤ 1 everywhere (sigmoid 0.1, tanh 0.77).
V act(double fv, double d, V a) { return {fv, std::abs(d) * a.e + a.e * a.e + kAct * u}; }
V sig(V a) {
  double s = 1 / (1 + std::exp(-a.v));
  return act(s, s * (1 - s), a);
}
V tnh(V a) {
  double t = std::tanh(a.v);
  return act(t, 1 - t * t, a);
}

// A sum of n terms in any order and grouping: each term meets at most n roundings (its
// product, n−1 additions), so n·u·Σ|terms|; 2·u_in·Σ|products| when the GEMM inputs are
// rounded (TF32); plus the propagated errors of the terms.
struct Acc {
  double v = 0, e = 0, s = 0, sp = 0;
  int64_t n = 0;
  void term(V a, V b) {
    double p = a.v * b.v;
    v += p;
    e += std::abs(a.v) * b.e + std::abs(b.v) * a.e + a.e * b.e;
    s += std::abs(p);
    sp += std::abs(p);
    ++n;
  }
  void term(V a) {
    v += a.v;
    e += a.e;
    s += std::abs(a.v);
    ++n;
  }
  V done(double u_in) const { return {v, e + double(n) * u * s + 2 * u_in * sp}; }
};

// What one step keeps for the backward: the carry it read and its activations.
struct Step {
  int64_t t = 0;
  std::vector<V> hp, cp, i, f, g, o, c, tc;
};

std::vector<V> exact(const std::vector<double>& a) {
  std::vector<V> r(a.size());
  for (size_t k = 0; k < a.size(); ++k) r[k] = {a[k], 0};
  return r;
}
std::vector<double> errors(const std::vector<V>& a) {
  std::vector<double> r(a.size());
  for (size_t k = 0; k < a.size(); ++k) r[k] = a[k].e;
  return r;
}

struct Bounder {
  const LstmConfig& c;
  ref::LstmLayout lay;
  std::vector<double> w;
  std::vector<int64_t> lens;
  double u_in;
  std::vector<std::vector<V>> inputs;            // layer l's input; back(): y
  std::vector<std::vector<std::vector<Step>>> steps;  // [pseudo-layer][batch row]
  std::vector<V> hn, cn;

  V wt(int64_t k) const { return {w[size_t(k)], 0}; }

  void forward(const std::vector<double>& x, const std::vector<double>& h0, const std::vector<double>& c0) {
    const int64_t B = c.batch, T = c.seq, H = c.hidden, D = c.dirs(), DH = D * H;
    inputs = {exact(x)};
    steps.assign(size_t(c.pseudo_layers()), std::vector<std::vector<Step>>(size_t(B)));
    hn = exact(h0);
    cn = exact(c0);
    for (int64_t l = 0; l < c.layers; ++l) {
      std::vector<V> out(size_t(B * T * DH));
      for (int64_t d = 0; d < D; ++d) {
        const int64_t p = l * D + d, In = c.layer_input(p);
        const ref::LstmSlot &wi = lay.w_ih[p], &wh = lay.w_hh[p], &bi = lay.b_ih[p], &bh = lay.b_hh[p];
        for (int64_t b = 0; b < B; ++b) {
          std::vector<V> h(hn.begin() + (p * B + b) * H, hn.begin() + (p * B + b + 1) * H);
          std::vector<V> cc(cn.begin() + (p * B + b) * H, cn.begin() + (p * B + b + 1) * H);
          for (int64_t k = 0; k < lens[b]; ++k) {
            Step st;
            st.t = d == 0 ? k : lens[b] - 1 - k;
            st.hp = h;
            st.cp = cc;
            const V* xt = &inputs[l][size_t((b * T + st.t) * In)];
            std::vector<V> a(size_t(4 * H));
            for (int64_t r = 0; r < 4 * H; ++r) {
              Acc z;
              z.term(wt(bi.offset + r));
              z.term(wt(bh.offset + r));
              for (int64_t j = 0; j < In; ++j) z.term(wt(wi.offset + r * In + j), xt[j]);
              for (int64_t j = 0; j < H; ++j) z.term(wt(wh.offset + r * H + j), h[j]);
              a[r] = z.done(u_in);
            }
            for (int64_t j = 0; j < H; ++j) {
              st.i.push_back(sig(a[j]));
              st.f.push_back(sig(a[H + j]));
              st.g.push_back(tnh(a[2 * H + j]));
              st.o.push_back(sig(a[3 * H + j]));
              cc[j] = add(mul(st.f[j], cc[j]), mul(st.i[j], st.g[j]));
              st.c.push_back(cc[j]);
              st.tc.push_back(tnh(cc[j]));
              h[j] = mul(st.o[j], st.tc[j]);
              out[(b * T + st.t) * DH + d * H + j] = h[j];
            }
            steps[p][b].push_back(std::move(st));
          }
          std::copy(h.begin(), h.end(), hn.begin() + (p * B + b) * H);
          std::copy(cc.begin(), cc.end(), cn.begin() + (p * B + b) * H);
        }
      }
      inputs.push_back(std::move(out));
    }
  }

  void backward(const std::vector<double>& dy, const std::vector<double>& dh_n, const std::vector<double>& dc_n,
                LstmBounds& out) {
    const int64_t B = c.batch, T = c.seq, H = c.hidden, D = c.dirs(), DH = D * H;
    std::vector<V> d_out = exact(dy), dh0 = exact(dh_n), dc0 = exact(dc_n);
    std::vector<Acc> dw(w.size());
    for (int64_t l = c.layers - 1; l >= 0; --l) {
      const int64_t In = c.layer_input(l * D);
      const std::vector<V>& in = inputs[size_t(l)];
      std::vector<Acc> d_in(in.size());
      for (int64_t d = 0; d < D; ++d) {
        const int64_t p = l * D + d;
        const ref::LstmSlot &wi = lay.w_ih[p], &wh = lay.w_hh[p], &bi = lay.b_ih[p], &bh = lay.b_hh[p];
        for (int64_t b = 0; b < B; ++b) {
          std::vector<V> dh(dh0.begin() + (p * B + b) * H, dh0.begin() + (p * B + b + 1) * H);
          std::vector<V> dc(dc0.begin() + (p * B + b) * H, dc0.begin() + (p * B + b + 1) * H);
          const std::vector<Step>& st = steps[p][b];
          for (int64_t k = int64_t(st.size()) - 1; k >= 0; --k) {
            const Step& q = st[size_t(k)];
            std::vector<V> da(size_t(4 * H));
            for (int64_t j = 0; j < H; ++j) {
              dh[j] = add(dh[j], d_out[(b * T + q.t) * DH + d * H + j]);
              V dcj = add(dc[j], mul(mul(dh[j], q.o[j]), one_minus(mul(q.tc[j], q.tc[j]))));
              da[j] = mul(mul(dcj, q.g[j]), mul(q.i[j], one_minus(q.i[j])));
              da[H + j] = mul(mul(dcj, q.cp[j]), mul(q.f[j], one_minus(q.f[j])));
              da[2 * H + j] = mul(mul(dcj, q.i[j]), one_minus(mul(q.g[j], q.g[j])));
              da[3 * H + j] = mul(mul(dh[j], q.tc[j]), mul(q.o[j], one_minus(q.o[j])));
              dc[j] = mul(dcj, q.f[j]);
            }
            const V* xt = &in[size_t((b * T + q.t) * In)];
            std::vector<Acc> dh_prev(static_cast<size_t>(H));
            for (int64_t r = 0; r < 4 * H; ++r) {
              dw[bi.offset + r].term(da[r]);
              dw[bh.offset + r].term(da[r]);
              for (int64_t j = 0; j < In; ++j) {
                dw[wi.offset + r * In + j].term(da[r], xt[j]);
                d_in[(b * T + q.t) * In + j].term(wt(wi.offset + r * In + j), da[r]);
              }
              for (int64_t j = 0; j < H; ++j) {
                dw[wh.offset + r * H + j].term(da[r], q.hp[j]);
                dh_prev[j].term(wt(wh.offset + r * H + j), da[r]);
              }
            }
            for (int64_t j = 0; j < H; ++j) dh[j] = dh_prev[j].done(u_in);
          }
          std::copy(dh.begin(), dh.end(), dh0.begin() + (p * B + b) * H);
          std::copy(dc.begin(), dc.end(), dc0.begin() + (p * B + b) * H);
        }
      }
      d_out.assign(d_in.size(), V{});
      for (size_t k = 0; k < d_in.size(); ++k) d_out[k] = d_in[k].done(u_in);
    }
    out.dx = errors(d_out);
    out.dh0 = errors(dh0);
    out.dc0 = errors(dc0);
    out.dw.resize(w.size());
    for (size_t k = 0; k < w.size(); ++k) out.dw[k] = dw[k].done(u_in).e;
  }
};

}  // namespace

const char* lstm_bound_why() {
  return "running error bound from the data (lstm_bound.h): per gate pre-activation n*u*sum|terms| "
         "(n = In+H+2), sigmoid/tanh 4u absolute, u per product and sum, propagated through the cell, "
         "the steps, the layers and the backward (dx, dh0, dc0; dw over the B*T terms); u = 2^-24";
}

LstmBounds lstm_error_bounds(const LstmConfig& c, const std::vector<Tensor>& host, bool tf32) {
  Bounder bd{c, ref::lstm_layout({c.batch, c.seq, c.input, c.hidden, c.layers, c.bidirectional}),
             host.at(3).to_f64(), {}, tf32 ? 0x1p-11 : 0.0, {}, {}, {}, {}};
  for (double v : host.at(4).to_f64()) bd.lens.push_back(int64_t(v));
  bd.forward(host.at(0).to_f64(), host.at(1).to_f64(), host.at(2).to_f64());
  LstmBounds r;
  r.y = errors(bd.inputs.back());
  r.h_n = errors(bd.hn);
  r.c_n = errors(bd.cn);
  if (host.size() >= 8) bd.backward(host[5].to_f64(), host[6].to_f64(), host[7].to_f64(), r);
  return r;
}

}  // namespace tandem
