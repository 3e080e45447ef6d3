// The LSTM's GEMMs alone (lstm_gemm_limit.h): the operand sizes are those of the largest
// pseudo-layer, every layer's products read them from the start.
#include "lab/bench/lstm_gemm_limit.h"

#include <algorithm>
#include <random>

#include "engine/cpu/lstm_cpu.h"
#include "engine/cpu/lstm_step_gemm.h"
#include "engine/core/omp_threads.h"
#include "engine/cpu/sgemm.h"


namespace tandem {
namespace {


// C[M,N] = op(A)·op(B), row-major, C overwritten: the kernel's all-steps products, through the
// engine's own sgemm (oneDNN in a oneDNN build, engine/cpu/sgemm.h), as the kernel calls them.
void sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B,
           int64_t ldb, float* C, int64_t ldc) {
  cpu::sgemm(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
}

std::vector<float> random_floats(int64_t n, std::mt19937& g) {
  std::uniform_real_distribution<float> u(-0.1f, 0.1f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(g);
  return v;
}

}  // namespace

LstmGemmSequence::LstmGemmSequence(const LstmConfig& c) : c_(c) {
  const int64_t B = c.batch, T = c.seq, H = c.hidden, G = 4 * H;
  int64_t in_max = 0;
  for (int64_t p = 0; p < c.pseudo_layers(); ++p) in_max = std::max(in_max, c.layer_input(p));
  std::mt19937 g(7);
  in_ = random_floats(B * T * in_max, g);
  w_ih_ = random_floats(G * in_max, g);
  w_hh_ = random_floats(G * H, g);
  h_ = random_floats(B * T * H, g);
  da_ = random_floats(B * T * G, g);
  out_.resize(size_t(B * T * G));
  d_in_.resize(size_t(B * T * in_max));
  dw_ih_.resize(w_ih_.size());
  dw_hh_.resize(w_hh_.size());
}

// T step products with W fixed for the call: forward R[B,4H] = h·W_hhᵀ, backward dh[B,H] = da·W_hh.
void LstmGemmSequence::step_products(StepGemmWay way, bool forward, const float* w, float* out) {
  const int64_t B = c_.batch, H = c_.hidden, G = 4 * H;
  const int64_t K = forward ? H : G, N = forward ? G : H;
  const float* a = forward ? h_.data() : da_.data();
  if (way == StepGemmWay::Packed) {
    cpu::LstmStepGemm product(B, K, N, w, forward, cpu::blas_thread_count());
    for (int64_t s = 0; s < c_.seq; ++s) product.run(a + s * B * K, out + s * B * N);
    return;
  }
  for (int64_t s = 0; s < c_.seq; ++s)
    sgemm(false, forward, B, N, K, a + s * B * K, K, w, forward ? K : N, out + s * B * N, N);
}

void LstmGemmSequence::forward(StepGemmWay way) {
  const int64_t BT = c_.batch * c_.seq, G = 4 * c_.hidden;
  for (int64_t p = 0; p < c_.pseudo_layers(); ++p) {
    const int64_t In = c_.layer_input(p);
    sgemm(false, true, BT, G, In, in_.data(), In, w_ih_.data(), In, out_.data(), G);  // P = in·W_ihᵀ
    step_products(way, true, w_hh_.data(), out_.data());
  }
}

void LstmGemmSequence::backward(StepGemmWay way) {
  const int64_t BT = c_.batch * c_.seq, H = c_.hidden, G = 4 * H;
  for (int64_t p = 0; p < c_.pseudo_layers(); ++p) {
    const int64_t In = c_.layer_input(p);
    step_products(way, false, w_hh_.data(), out_.data());
    sgemm(true, false, G, H, BT, da_.data(), G, h_.data(), H, dw_hh_.data(), H);         // dW_hh = daᵀ·h
    sgemm(true, false, G, In, BT, da_.data(), G, in_.data(), In, dw_ih_.data(), In);     // dW_ih = daᵀ·in
    sgemm(false, false, BT, In, G, da_.data(), G, w_ih_.data(), In, d_in_.data(), In);   // d_in = da·W_ih
  }
}

LstmGateLoops::LstmGateLoops(const LstmConfig& c) : c_(c) {
  const int64_t B = c.batch, T = c.seq, H = c.hidden, G = 4 * H;
  std::mt19937 g(11);
  pre_ = random_floats(2 * B * T * G, g);  // the projection P and the step products' R, side by side
  bias_ = random_floats(G, g);
  gates_ = random_floats(B * T * G, g);
  c_hist_ = random_floats(B * (T + 1) * H, g);
  h_hist_.resize(size_t(B * (T + 1) * H));
  y_.resize(size_t(B * T * H));
  dy_ = random_floats(B * T * H, g);
  dh_ = random_floats(B * H, g);
  dc_ = random_floats(B * H, g);
  da_.resize(size_t(B * T * G));
}

// rows(s, b) for every step and row, the rows of a step over the kernel's threads.
template <class F>
void each_step_rows(const LstmConfig& c, F&& row) {
  const int threads = std::max(1, cpu::blas_thread_count());
  for (int64_t p = 0; p < c.pseudo_layers(); ++p)
    for (int64_t s = 0; s < c.seq; ++s) {
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && c.batch >= 8)
      for (int64_t b = 0; b < c.batch; ++b) row(s, b);
    }
}

void LstmGateLoops::forward() {
  const int64_t B = c_.batch, T = c_.seq, H = c_.hidden, G = 4 * H;
  each_step_rows(c_, [&](int64_t s, int64_t b) {
    const int64_t r = b * T + s;
    cpu::detail::cell_forward_row(H, &pre_[size_t(r * G)], &pre_[size_t((B * T + r) * G)], bias_.data(),
                                  &c_hist_[size_t((s * B + b) * H)], &gates_[size_t((s * B + b) * G)],
                                  &c_hist_[size_t(((s + 1) * B + b) * H)], &h_hist_[size_t(((s + 1) * B + b) * H)],
                                  &y_[size_t(r * H)]);
  });
}

void LstmGateLoops::backward() {
  const int64_t B = c_.batch, T = c_.seq, H = c_.hidden, G = 4 * H;
  each_step_rows(c_, [&](int64_t s, int64_t b) {
    const int64_t t = T - 1 - s;  // the backward walks the steps from the last
    cpu::detail::cell_backward_row(H, &gates_[size_t((t * B + b) * G)], &c_hist_[size_t(((t + 1) * B + b) * H)],
                                   &c_hist_[size_t((t * B + b) * H)], &dh_[size_t(b * H)], &dy_[size_t((b * T + t) * H)],
                                   &dc_[size_t(b * H)], &da_[size_t((t * B + b) * G)]);
  });
}

}  // namespace tandem
