// The fast CPU LSTM (f32): per pseudo-layer, the input projection of every time step is one
// sgemm ([B*T, In] x W_ih^T, both biases folded in), then one small GEMM per step for the
// recurrence (oneDNN with W_hh packed once per call when built with it, lstm_step_gemm.h) with the gate nonlinearities and the cell update fused in one pass. Ragged
// lengths by masking the carry; the reverse direction walks each row's prefix backwards, so
// no flipped copy is made. The backward keeps the step-order cotangents so that dW_hh, dW_ih,
// dx are each one sgemm over all steps. Threads: the all-steps GEMMs use BLAS's threads; the
// recurrence either uses BLAS-threaded step GEMMs or, when BLAS is single-threaded, is split
// by batch rows across std::threads (rows are independent, so no step needs a barrier and
// results are bit-identical for every thread count).
#pragma once
#include <cstdint>
#include <vector>

#include "engine/core/lstm_config.h"

namespace tandem::cpu {

// What the forward keeps for the backward (training mode): views into the reserve, laid out
// by lstm_reserve_layout (engine/core/lstm_config.h); layer 0's input is x itself.
struct LstmSaved {
  std::vector<float*> layer_in;  // per layer: its input [B, T, In]
  std::vector<float*> gates;     // per pseudo-layer: [T(step), B, 4H] activated
  std::vector<float*> h, c;      // per pseudo-layer: [T+1(step), B, H], row 0 = h0
};
// The views for a reserve of lstm_reserve_layout(c).total floats and the forward's x.
LstmSaved lstm_saved_views(const LstmConfig& c, float* reserve, const float* x);

// Raw f32 host pointers; lens has B entries already checked to lie in [1, T].
// save may be null (inference); otherwise its views are fully written. y must hold B*T*D*H
// floats and is fully written.
void lstm_forward(const LstmConfig& c, const float* x, const float* h0, const float* c0, const float* w,
                  const int32_t* lens, float* y, float* h_n, float* c_n, const LstmSaved* save);

// Reads the forward's reserve (never re-runs the forward). dy entries at padded steps are
// ignored. dx, dh0, dc0 are overwritten; dw is overwritten (not accumulated).
void lstm_backward(const LstmConfig& c, const float* w, const int32_t* lens, const LstmSaved& saved, const float* dy,
                   const float* dh_n, const float* dc_n, float* dx, float* dh0, float* dc0, float* dw);

namespace detail {  // the per-row step loops (vectorized; exposed for their test)
void cell_forward_row(int64_t H, const float* pr, const float* rr, const float* bias, const float* c_prev,
                      float* a, float* c_new, float* h_new, float* y);
void cell_backward_row(int64_t H, const float* a, const float* c_new, const float* c_prev,
                       const float* dh_carry, const float* dy, float* dc, float* da);
}  // namespace detail

// Threads the recurrence is split across by batch rows (default: TANDEM_LSTM_THREADS, else
// every hardware thread). The split applies when BLAS runs single-threaded; with OpenBLAS
// threads the step GEMMs are BLAS-threaded instead (faster where measured, see
// lab/README.md), unless set_lstm_always_split_rows(true). BLAS keeps its own setting
// (OPENBLAS_NUM_THREADS) for every GEMM outside a split.
void set_lstm_threads(int n);
void set_lstm_always_split_rows(bool always);
int lstm_threads();

}  // namespace tandem::cpu
