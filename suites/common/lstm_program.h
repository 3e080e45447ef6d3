// The LSTM as an IR Program: per layer and direction a scan over a cell built with the builder API, so the same model
// runs through the generic executor (and later autodiff, remat and hoisting). Inputs (x[B,T,I], h0[S,B,H], c0[S,B,H],
// w[P], seq_lengths i32[B]), outputs (y[B,T,D*H], h_n, c_n), JAX's semantics: the carry is frozen and y is 0 past a
// row's length; the reverse direction is a reverse scan under the same mask, which visits each row's prefix backwards
// exactly as JAX's flip-within-length does.
#pragma once
#include <string>

#include "engine/ir/ir.h"
#include "engine/passes/vjp.h"
#include "engine/prims/lstm.h"

namespace tandem {

Program lstm_program(const LstmConfig& c, const std::string& precision = "HIGHEST");

// The Program path's training programs: the vjp pass over lstm_program (wrt x, h0, c0, w; residuals saved), then two
// rewrites of the backward, each on unless its flag is false (off: the plain autodiff, for comparison):
// hoist_scan_accumulations turns the backward scan's per-step dW_hh += h_{t-1}ᵀ·dgates_t into one GEMM over all steps
// after the scan, and fold_scattered_adds adds each weight slice's cotangent into its window of dw instead of summing
// full-size zero-padded copies (the kernel does both the same way). lstm_program_joint is the joint program (inputs...,
// output cts...) → (y, h_n, c_n, dx, dh0, dc0, dw).
VjpProgram lstm_program_vjp(const LstmConfig& c, bool hoist_accumulations = true, bool fold_slices = true);
Program lstm_program_joint(const LstmConfig& c, bool hoist_accumulations = true, bool fold_slices = true);

// The one-equation programs of the primitive path: lstm_fwd, and lstm_fwd + lstm_bwd with
// inputs (x, h0, c0, w, seq_lengths, dy, dh_n, dc_n) → (y, h_n, c_n, dx, dh0, dc0, dw).
Program lstm_fwd_program(const LstmConfig& c, const std::string& precision = "HIGHEST");
Program lstm_train_program(const LstmConfig& c, const std::string& precision = "HIGHEST");

}  // namespace tandem
