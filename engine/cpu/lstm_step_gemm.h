// The CPU LSTM kernel's per-step recurrent product C[M,N] = A[M,K] · op(W) with W fixed for a
// whole kernel call (h·W_hh^T forward, da·W_hh backward). Built with oneDNN
// (TANDEM_WITH_ONEDNN), a matmul primitive is created once per call with its weights reordered
// once into the layout it packs for; OpenBLAS's cblas_sgemm re-packs W on every step, which
// measured 22–31% slower per step on the perf shapes (lab/README.md, "LSTM step GEMM").
// Without oneDNN, where it declines the shape, or under TANDEM_LSTM_ONEDNN=0, every step is
// one cblas_sgemm.
#pragma once

#include <cstdint>
#include <memory>

namespace tandem::cpu {

class LstmStepGemm {
 public:
  // W is row-major [N,K] with op(W) = W^T when w_transposed, else [K,N] with op(W) = W.
  // threads: the library threads one product may use (0: the library's default).
  LstmStepGemm(int64_t M, int64_t K, int64_t N, const float* W, bool w_transposed, int threads);
  ~LstmStepGemm();
  LstmStepGemm(const LstmStepGemm&) = delete;
  LstmStepGemm& operator=(const LstmStepGemm&) = delete;
  void run(const float* A, float* C);  // C = A · op(W), overwritten

 private:
  struct OneDnn;
  int64_t M_, K_, N_;
  const float* W_;
  bool w_transposed_;
  std::unique_ptr<OneDnn> dnnl_;
};

}  // namespace tandem::cpu
