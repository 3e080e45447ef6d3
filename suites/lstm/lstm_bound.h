// Data-derived error bounds of the LSTM suite: a running error analysis (Wilkinson) of the f32 LSTM, forward and
// backward, evaluated in f64 on the case's own inputs and weights. Every gate pre-activation is a dot of In+H+2 terms
// whose rounding is bounded by n·u·Σ|terms| (Σ|terms| from the actual x, h, W, b); the bound then propagates through
// the cell (sigmoid/tanh with their derivatives, the products and sums of c and h), across the steps and layers, and
// back through the backward pass (dh, dc, the gate cotangents, dx, dh0, dc0 and dw, whose sums over B·T are bounded the
// same way). The result is one bound per output element instead of a flat tolerance, so a check fails when an element
// errs by more than its own computation can explain.
#pragma once
#include <vector>

#include "engine/core/lstm_config.h"
#include "engine/core/tensor.h"

namespace tandem {

struct LstmBounds {
  std::vector<double> y, h_n, c_n;      // forward: shapes of the outputs
  std::vector<double> dx, dh0, dc0, dw;  // backward: empty when `host` has no cotangents
};

// `host` as make_lstm_inputs returns it: x, h0, c0, w, seq_lengths[, dy, dh_n, dc_n]. A length of 0 is allowed (the row
// keeps h0, c0: bound 0). `tf32` adds the rounding of every GEMM input to 10 mantissa bits.
LstmBounds lstm_error_bounds(const LstmConfig& c, const std::vector<Tensor>& host, bool tf32);

// The unit roundoff the bounds use and how they are made, for the records.
constexpr double kLstmU = 0x1p-24;
// The check allows kLstmBoundMargin × the bound: the bound is rigorous to first order for
// the operations it models; the margin covers an implementation that spends a few more
// roundings per op (a sigmoid via tanh, an unfused multiply-add) than the model counts.
constexpr double kLstmBoundMargin = 2;
const char* lstm_bound_why();

}  // namespace tandem
