// The fast CPU LSTM's GEMMs alone, on the same shapes and layouts the kernel calls them with
// (engine/cpu/lstm_cpu.cc): the time a kernel that did nothing but its products would take,
// which is the limit the kernel is measured against (lab/pages/lstm.md, "Against the
// limit"). Per pseudo-layer, the forward is the all-steps input projection [B·T, In]·W_ihᵀ and
// T step products h·W_hhᵀ; the backward is T step products da·W_hh, then dW_hh = daᵀ·h,
// dW_ih = daᵀ·in and d_in = da·W_ih over all steps at once. The gate math (timed alone by
// LstmGateLoops below), the copies and the bias gradient are what the kernel adds on top.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/lstm_config.h"

namespace tandem {

// How the step products run: Packed uses the kernel's own LstmStepGemm (W packed once per
// call by oneDNN when built with it), Sgemm one engine sgemm call per step (engine/cpu/sgemm.h),
// re-packing W each time. The all-steps products always go through the engine's sgemm.
enum class StepGemmWay { Packed, Sgemm };

class LstmGemmSequence {
 public:
  explicit LstmGemmSequence(const LstmConfig& c);  // operands drawn in ±0.1 from a fixed seed
  void forward(StepGemmWay way);
  void backward(StepGemmWay way);

 private:
  void step_products(StepGemmWay way, bool forward, const float* w, float* out);
  LstmConfig c_;
  std::vector<float> in_, w_ih_, w_hh_, h_, da_, out_, d_in_, dw_ih_, dw_hh_;
};

// The kernel's gate loops alone: per pseudo-layer and step, every row's cell_forward_row (and,
// backward, cell_backward_row) on rows of the same size and layout, with the rows shared over
// the same OpenMP threads as the kernel's for_gate_rows (OPENBLAS_NUM_THREADS of them, one
// OpenMP parallel region per step). GEMMs alone + gate loops alone is what the kernel would
// take if it added nothing else: the copies and thread hand-offs are the rest.
class LstmGateLoops {
 public:
  explicit LstmGateLoops(const LstmConfig& c);
  void forward();   // training's: the activated gates are written, as into the reserve
  void backward();

 private:
  LstmConfig c_;
  std::vector<float> pre_, bias_, gates_, c_hist_, h_hist_, y_, dy_, dh_, dc_, da_;
};

}  // namespace tandem
