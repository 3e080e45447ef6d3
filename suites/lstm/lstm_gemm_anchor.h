// The LSTM perf cases' anchor (harness/anchor.h): the GEMMs an LSTM of that shape does, called
// straight on the f32 product library — per pseudo-layer the all-steps input projection and T step products
// forward; training adds the backward's T step products and its three all-steps products
// (dW_hh, dW_ih, d_in), as lab/bench/lstm_gemm_limit.h lays them out, on the library
// the engine's products call (cpu::sgemm: oneDNN or the BLAS). No gate math, no tandem code: the gate judges the case over this, so a busier machine cancels and tandem's own cost shows.
#pragma once
#include <functional>

#include "engine/core/lstm_config.h"

namespace tandem {

std::function<void()> lstm_gemm_anchor(const LstmConfig& c, bool train);

}  // namespace tandem
