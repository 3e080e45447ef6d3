// The LSTM's GEMMs alone on the engine's f32 product library (lstm_gemm_anchor.h); operands sized for the largest
// pseudo-layer, every layer's products reading them from the start.
#include "suites/lstm/lstm_gemm_anchor.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "engine/cpu/sgemm.h"

namespace tandem {
namespace {

struct Buffers {
  std::vector<float> in, w_ih, w_hh, h, da, out, d_in, dw_ih, dw_hh;
};

// C[M,N] = op(A)·op(B), row-major, on the library the engine's products call (cpu::sgemm), so
// the anchor and the case share one threading runtime (suites/dot/dot_perf_cases.cc says why).
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
          float* C, int64_t ldc) {
  cpu::sgemm(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
}

std::vector<float> filled(int64_t n, float step) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = step * float(int(i % 21) - 10);
  return v;
}

void forward(const LstmConfig& c, Buffers& b) {
  const int64_t B = c.batch, T = c.seq, H = c.hidden, G = 4 * H;
  for (int64_t p = 0; p < c.pseudo_layers(); ++p) {
    const int64_t In = c.layer_input(p);
    gemm(false, true, B * T, G, In, b.in.data(), In, b.w_ih.data(), In, b.out.data(), G);  // in·W_ihᵀ
    for (int64_t s = 0; s < T; ++s)                                                           // h·W_hhᵀ
      gemm(false, true, B, G, H, b.h.data() + s * B * H, H, b.w_hh.data(), H, b.out.data() + s * B * G, G);
  }
}

void backward(const LstmConfig& c, Buffers& b) {
  const int64_t B = c.batch, T = c.seq, H = c.hidden, G = 4 * H, BT = B * T;
  for (int64_t p = 0; p < c.pseudo_layers(); ++p) {
    const int64_t In = c.layer_input(p);
    for (int64_t s = 0; s < T; ++s)  // dh = da·W_hh
      gemm(false, false, B, H, G, b.da.data() + s * B * G, G, b.w_hh.data(), H, b.d_in.data() + s * B * H, H);
    gemm(true, false, G, H, BT, b.da.data(), G, b.h.data(), H, b.dw_hh.data(), H);         // daᵀ·h
    gemm(true, false, G, In, BT, b.da.data(), G, b.in.data(), In, b.dw_ih.data(), In);     // daᵀ·in
    gemm(false, false, BT, In, G, b.da.data(), G, b.w_ih.data(), In, b.d_in.data(), In);   // da·W_ih
  }
}

}  // namespace

std::function<void()> lstm_gemm_anchor(const LstmConfig& c, bool train) {
  const int64_t B = c.batch, T = c.seq, H = c.hidden, G = 4 * H;
  int64_t in_max = H;
  for (int64_t p = 0; p < c.pseudo_layers(); ++p) in_max = std::max(in_max, c.layer_input(p));
  auto b = std::make_shared<Buffers>();
  b->in = filled(B * T * in_max, 0.01f), b->w_ih = filled(G * in_max, 0.002f), b->w_hh = filled(G * H, 0.003f);
  b->h = filled(B * T * H, 0.01f), b->da = filled(B * T * G, 0.001f);
  b->out.resize(size_t(B * T * G)), b->d_in.resize(size_t(B * T * in_max));
  b->dw_ih.resize(b->w_ih.size()), b->dw_hh.resize(b->w_hh.size());
  return [c, train, b] {
    forward(c, *b);
    if (train) backward(c, *b);
  };
}

}  // namespace tandem
