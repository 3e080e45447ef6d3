// Fast CPU LSTM forward and backward (see lstm_cpu.h for the plan). Shapes in comments use
// B batch, T steps, In layer input width, H hidden, D directions; "step s" is the s-th cell
// applied to a row, at time t = s (forward) or len-1-s (reverse).
#include "engine/cpu/lstm_cpu.h"
#include "engine/cpu/lstm_step_gemm.h"
#include "engine/core/omp_threads.h"
#include "engine/cpu/sgemm.h"
#include "engine/cpu/vector_clones.h"
#include "engine/cpu/vector_math_exp.h"
#include "engine/core/faults.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <thread>

#ifdef TANDEM_BLAS_OPENBLAS
extern "C" void openblas_set_num_threads(int);
#endif

namespace tandem::cpu {
// The per-row cell loops are compiled twice — AVX2+FMA and baseline x86-64 — and picked at
// load time (TANDEM_VECTOR_CLONES), so one binary vectorizes wide where it can.

namespace detail {

// One row's step: pre-activations (pr + bias) + rr [4H] → activated gates a [4H] (i f g o),
// the new cell and hidden state, and the row's y slice (= h). The bias is added here, not
// broadcast into the projection before its product: that was a pass over all B·T·4H floats.
TANDEM_VECTOR_CLONES
void cell_forward_row(int64_t H, const float* __restrict pr, const float* __restrict rr,
                      const float* __restrict bias, const float* __restrict c_prev, float* __restrict a,
                      float* __restrict c_new, float* __restrict h_new, float* __restrict y) {
  auto pre = [&](int64_t k) { return (pr[k] + bias[k]) + rr[k]; };
  for (int64_t j = 0; j < H; ++j) {
    const float i = logistic_f(pre(j));
    const float f = logistic_f(pre(H + j));
    const float g = tanh_f(pre(2 * H + j));
    const float o = logistic_f(pre(3 * H + j));
    const float cv = f * c_prev[j] + i * g;
    const float hv = o * tanh_f(cv);
    a[j] = i;
    a[H + j] = f;
    a[2 * H + j] = g;
    a[3 * H + j] = o;
    c_new[j] = cv;
    h_new[j] = hv;
    y[j] = hv;
  }
}

// One row's step backward: from the saved gates a, the cell states and the incoming dh (carry
// + dy), the pre-activation cotangents da [4H]; dc is the cell carry, updated in place.
TANDEM_VECTOR_CLONES
void cell_backward_row(int64_t H, const float* __restrict a, const float* __restrict c_new,
                       const float* __restrict c_prev, const float* __restrict dh_carry,
                       const float* __restrict dy, float* __restrict dc, float* __restrict da) {
  for (int64_t j = 0; j < H; ++j) {
    const float i = a[j], f = a[H + j], g = a[2 * H + j], o = a[3 * H + j];
    const float dhj = dh_carry[j] + dy[j];
    const float tc = tanh_f(c_new[j]);
    const float dcj = dc[j] + dhj * o * (1 - tc * tc);
    da[j] = dcj * g * i * (1 - i);
    da[H + j] = dcj * c_prev[j] * f * (1 - f);
    da[2 * H + j] = dcj * i * (1 - g * g);
    da[3 * H + j] = dhj * tc * o * (1 - o);
    dc[j] = dcj * f;
  }
}

// db[k] = Σ_r da[r, k], row by row (bits independent of threads). OpenBLAS's sgemv, used before,
// left its worker spinning beside the OpenMP threads on two cores: 75–236 ms bidi2 (lstm.md).
TANDEM_VECTOR_CLONES
void column_sum(int64_t rows, int64_t G, const float* __restrict da, float* __restrict db) {
  std::fill(db, db + G, 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < G; ++k) db[k] += da[r * G + k];
}

}  // namespace detail

namespace {

// TANDEM_LSTM_THREADS, else every hardware thread (as OpenBLAS defaults to).
int default_threads() {
  if (const char* e = std::getenv("TANDEM_LSTM_THREADS")) return std::max(1, std::atoi(e));
  return std::max(1u, std::thread::hardware_concurrency());
}
int g_threads = default_threads();
bool g_always_split_rows = false;

// Runs fn(b0, b1) over contiguous chunks of the batch rows [0, B), one chunk per thread, the first on the calling
// thread. LSTM rows are independent, so each chunk runs its whole recurrence (its own small step GEMMs and gate loops)
// with no synchronization per step. Bits do not depend on the thread count where the GEMM gives a row the same bits
// whatever the rows in the call (oneDNN's AVX-512 kernels, not its AVX2 ones: lstm_cpu_test.cc). OpenBLAS: 1 thread.
// When OpenBLAS itself has several threads, rows are not split (unless forced): measured on the nightly shapes
// (lab/README.md, LSTM), BLAS-threaded step GEMMs were faster on 18 of 20 rows and level on 2 — each chunk's thinner
// GEMM re-packs all of W_hh, and at batch 16 a chunk's GEMM has only 8 rows. So the split serves OPENBLAS_NUM_THREADS=1
// (e.g. one process per core) or a BLAS whose threads tandem cannot see.
template <class F>
void for_row_chunks(int64_t B, F&& fn) {
  int64_t n = std::min<int64_t>(g_threads, B);
#ifdef TANDEM_BLAS_OPENBLAS
  const int blas_threads = blas_thread_count();
  if (blas_threads > 1 && !g_always_split_rows) n = 1;
#endif
  if (n <= 1) {
    fn(int64_t(0), B);
    return;
  }
#ifdef TANDEM_BLAS_OPENBLAS
  openblas_set_num_threads(1);
#endif
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(n));
  auto chunk = [&](int64_t k) {
    try {
      fn(B * k / n, B * (k + 1) / n);
    } catch (...) {
      errors[size_t(k)] = std::current_exception();
    }
  };
  for (int64_t k = 1; k < n; ++k) pool.emplace_back(chunk, k);
  chunk(0);
  for (std::thread& t : pool) t.join();
#ifdef TANDEM_BLAS_OPENBLAS
  openblas_set_num_threads(blas_threads);
#endif
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// C[M,N] = beta*C + op(A) op(B), row-major.
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
          const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  sgemm(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc);
}

// The step products C[M,N] = A · op(Bm) of one chunk of rows [b0, b1) of B, with Bm fixed for
// the kernel call: a LstmStepGemm (oneDNN, Bm packed once, when built with it) created once per
// chunk. When the whole batch is one row, y[N] = op(Bm) x is a matrix-vector product that
// sgemv streams at memory speed, where sgemm with M = 1 pays its packing; chosen by the batch
// size (not the chunk size), so that the choice of product never depends on the thread count.
class StepProduct {
 public:
  StepProduct(int64_t B, int64_t b0, int64_t b1, bool tb, int64_t N, int64_t K, const float* Bm)
      : one_row_(B == 1), tb_(tb), N_(N), K_(K), Bm_(Bm) {
    if (!one_row_) gemm_.emplace(b1 - b0, K, N, Bm, tb, product_threads(B, b1 - b0));
  }
  void run(const float* A, float* C) {
    if (gemm_) return gemm_->run(A, C);
    // tb: Bm is [N, K] and C = Bm · a; else Bm is [K, N] and C = Bm^T · a.
    cblas_sgemv(CblasRowMajor, tb_ ? CblasNoTrans : CblasTrans, int(tb_ ? N_ : K_), int(tb_ ? K_ : N_), 1.0f, Bm_,
                int(tb_ ? K_ : N_), A, 1, 0.0f, C, 1);
  }

 private:
  // One thread per chunk while chunks run side by side (as for_row_chunks holds OpenBLAS to);
  // the whole batch in one chunk gets OpenBLAS's thread count, so that OPENBLAS_NUM_THREADS
  // stays the one knob whichever library runs the product.
  static int product_threads(int64_t B, int64_t rows) { return rows < B ? 1 : blas_thread_count(); }
  bool one_row_, tb_;
  int64_t N_, K_;
  const float* Bm_;
  std::optional<LstmStepGemm> gemm_;
};

// One step's gate loop over the rows [b0, b1). When the chunk is the whole batch and its step
// products run on several threads, the rows are shared over as many OpenMP threads (oneDNN's
// pool): on one core between two-thread products the gate math bounded the kernel at 74 % of
// its GEMMs (lstm.md, "Against the limit"). Rows are independent: the bits do not change.
template <class F>
void for_gate_rows(int64_t B, int64_t b0, int64_t b1, F&& row) {
#if defined(_OPENMP) && defined(TANDEM_BLAS_OPENBLAS)
  const int threads = b1 - b0 == B ? blas_thread_count() : 1;
  if (threads > 1 && b1 - b0 >= 8) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t b = b0; b < b1; ++b) row(b);
    return;
  }
#endif
  for (int64_t b = b0; b < b1; ++b) row(b);
}

inline int64_t time_of(int64_t s, int64_t len, int64_t dir) { return dir == 0 ? s : len - 1 - s; }

// Fault lstm_gates_f_g_swapped: the weights as if read in another framework's gate order
// (rows of gates f and g exchanged in every matrix and bias).
std::vector<float> swap_gates_f_g(const LstmConfig& c, const LstmWeightLayout& lay, const float* w) {
  std::vector<float> s(w, w + lay.total);
  for (int64_t p = 0; p < c.pseudo_layers(); ++p)
    for (const LstmWeightSlot& m : {lay.w_ih[p], lay.w_hh[p], lay.b_ih[p], lay.b_hh[p]}) {
      const int64_t block = m.rows / 4 * m.cols;  // one gate's rows
      std::swap_ranges(s.begin() + m.offset + block, s.begin() + m.offset + 2 * block, s.begin() + m.offset + 2 * block);
    }
  return s;
}

// The big buffers of one kernel call (the projection P, the backward's cotangents and the inference history), kept per
// thread from call to call. A fresh vector of 10+ MB per call came from mmap, so every call page-faulted it in and
// zero-filled it: 10 % of a DeepBench B64 forward+backward (98 against 109 ms with glibc kept from returning the
// memory, lab/pages/lstm.md "Against the limit"). Each user writes what it reads; `sized` zero-fills only what a vector
// grows by.
struct Scratch {
  std::vector<float> P, hs, cs, ping, pong, d_out, d_in, da_step, da_bt;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}
float* sized(std::vector<float>& v, int64_t n) {
  if (v.size() < size_t(n)) v.resize(size_t(n));
  return v.data();
}

// One pseudo-layer forward over in [B,T,In]; writes out [B,T,D*H] at columns dir*H.
// hs, cs: [T+1, B, H] (row 0 = h0, c0); gates: [T, B, 4H] activated (may be null).
void forward_pseudo_layer(const LstmConfig& c, const LstmWeightLayout& lay, int64_t p,
                          const float* in, const float* h0, const float* c0, const float* w,
                          const int32_t* lens, float* out, float* hs, float* cs, float* gates) {
  const int64_t B = c.batch, T = c.seq, H = c.hidden, G = 4 * H, In = c.layer_input(p);
  const int64_t DH = c.dirs() * H, dir = p % c.dirs();
  const float* W_ih = w + lay.w_ih[p].offset;
  const float* W_hh = w + lay.w_hh[p].offset;
  const float* b_ih = w + lay.b_ih[p].offset;
  const float* b_hh = w + lay.b_hh[p].offset;
  // Input projection for every (b, t) at once: P[B*T, 4H] = in · W_ih^T (the bias joins in the gate loop).
  float* P = sized(scratch().P, B * T * G);  // every element set below
  const float hh_bias = fault_on(Fault::lstm_hh_bias_dropped) ? 0.0f : 1.0f;  // fault: b_hh lost on import
  std::vector<float> bias(static_cast<size_t>(G));
  for (int64_t k = 0; k < G; ++k) bias[size_t(k)] = b_ih[k] + hh_bias * b_hh[k];
  // Faults: seq_lengths ignored, forward (padded steps update the state) or reverse (starts at T-1).
  const bool pad_steps_run = dir == 0 && fault_on(Fault::lstm_forward_ignores_seq_lengths);
  const bool reverse_from_end = dir == 1 && fault_on(Fault::lstm_reverse_ignores_seq_lengths);
  gemm(false, true, B * T, G, In, in, In, W_ih, In, 0.0f, P, G);
  std::memcpy(hs, h0, sizeof(float) * B * H);
  std::memcpy(cs, c0, sizeof(float) * B * H);
  for_row_chunks(B, [&](int64_t b0, int64_t b1) {
    const int64_t nb = b1 - b0;
    std::vector<float> R(static_cast<size_t>(nb * G)), act(static_cast<size_t>(nb * G));
    StepProduct recurrent(B, b0, b1, true, G, H, W_hh);  // R[nb,4H] = h · W_hh^T
    for (int64_t s = 0; s < T; ++s) {
      const float* hp = hs + s * B * H;
      const float* cp = cs + s * B * H;
      float* hn = hs + (s + 1) * B * H;
      float* cn = cs + (s + 1) * B * H;
      recurrent.run(hp + b0 * H, R.data());
      for_gate_rows(B, b0, b1, [&](int64_t b) {
        if (s >= lens[b] && !pad_steps_run) {  // past this row's length: the carry stays, y stays 0
          std::memcpy(hn + b * H, hp + b * H, sizeof(float) * H);
          std::memcpy(cn + b * H, cp + b * H, sizeof(float) * H);
          if (gates) std::fill(gates + (s * B + b) * G, gates + (s * B + b + 1) * G, 0.0f);  // defined reserve
          return;
        }
        const int64_t t = time_of(s, reverse_from_end ? T : lens[b], dir);
        const float* pr = &P[(b * T + t) * G];
        const float* rr = &R[(b - b0) * G];
        float* a = gates ? gates + (s * B + b) * G : &act[size_t((b - b0) * G)];
        detail::cell_forward_row(H, pr, rr, bias.data(), cp + b * H, a, cn + b * H, hn + b * H,
                                 out + (b * T + t) * DH + dir * H);
      });
    }
  });
}

}  // namespace

void set_lstm_threads(int n) { g_threads = std::max(1, n); }
void set_lstm_always_split_rows(bool always) { g_always_split_rows = always; }
int lstm_threads() { return g_threads; }

LstmSaved lstm_saved_views(const LstmConfig& c, float* reserve, const float* x) {
  LstmReserveLayout r = lstm_reserve_layout(c);
  LstmSaved s;
  s.layer_in.push_back(const_cast<float*>(x));  // read only: the backward never writes it
  for (int64_t l = 1; l < c.layers; ++l) s.layer_in.push_back(reserve + r.layer_in[size_t(l)]);
  for (int64_t p = 0; p < c.pseudo_layers(); ++p) {
    s.gates.push_back(reserve + r.gates[size_t(p)]);
    s.h.push_back(reserve + r.h[size_t(p)]);
    s.c.push_back(reserve + r.c[size_t(p)]);
  }
  return s;
}

void lstm_forward(const LstmConfig& c, const float* x, const float* h0, const float* c0,
                  const float* w, const int32_t* lens, float* y, float* h_n, float* c_n,
                  const LstmSaved* save) {
  const int64_t B = c.batch, T = c.seq, H = c.hidden, D = c.dirs();
  LstmWeightLayout lay = lstm_weight_layout(c.input, c.hidden, c.layers, c.bidirectional);
  const int64_t state = B * H;
  std::vector<float> swapped;
  if (fault_on(Fault::lstm_gates_f_g_swapped)) w = (swapped = swap_gates_f_g(c, lay, w)).data();
  // Inference keeps one h/c history and ping-pongs the layer outputs; training writes both straight into the reserve.
  Scratch& sc = scratch();
  float* hs = save ? nullptr : sized(sc.hs, (T + 1) * state);
  float* cs = save ? nullptr : sized(sc.cs, (T + 1) * state);
  const float* cur = x;
  for (int64_t l = 0; l < c.layers; ++l) {
    const bool last = l + 1 == c.layers;
    float* out = y;
    if (!last) {
      out = save ? save->layer_in[size_t(l + 1)] : sized(l % 2 == 0 ? sc.ping : sc.pong, B * T * D * H);
    }
    std::fill(out, out + B * T * D * H, 0.0f);  // padded steps stay 0
    for (int64_t d = 0; d < D; ++d) {
      const int64_t p = l * D + d;
      float* hp = save ? save->h[size_t(p)] : hs;
      float* cp = save ? save->c[size_t(p)] : cs;
      forward_pseudo_layer(c, lay, p, cur, h0 + p * state, c0 + p * state, w, lens, out, hp, cp,
                           save ? save->gates[size_t(p)] : nullptr);
      std::memcpy(h_n + p * state, hp + T * state, sizeof(float) * state);
      std::memcpy(c_n + p * state, cp + T * state, sizeof(float) * state);
    }
    cur = out;
  }
}

void lstm_backward(const LstmConfig& c, const float* w, const int32_t* lens,
                   const LstmSaved& sv, const float* dy, const float* dh_n, const float* dc_n,
                   float* dx, float* dh0, float* dc0, float* dw) {
  const int64_t B = c.batch, T = c.seq, H = c.hidden, G = 4 * H, D = c.dirs(), DH = D * H;
  LstmWeightLayout lay = lstm_weight_layout(c.input, c.hidden, c.layers, c.bidirectional);
  std::fill(dw, dw + lay.total, 0.0f);
  Scratch& sc = scratch();
  std::vector<float>& d_out = sc.d_out;
  std::vector<float>& d_in = sc.d_in;
  d_out.assign(dy, dy + B * T * DH);
  float* da_step = sized(sc.da_step, T * B * G);  // fully written below, or zeroed when ragged
  float* da_bt = sized(sc.da_bt, B * T * G);
  std::vector<float> tmp(size_t(B * H));
  std::vector<float> dh(size_t(B * H)), dc(size_t(B * H));
  const bool ragged = std::any_of(lens, lens + B, [T](int32_t n) { return n < T; });
  for (int64_t l = c.layers - 1; l >= 0; --l) {
    const int64_t In = c.layer_input(l * D);
    const float* in = sv.layer_in[size_t(l)];
    d_in.assign(size_t(B * T * In), 0.0f);
    for (int64_t d = 0; d < D; ++d) {
      const int64_t p = l * D + d;
      const float* gates = sv.gates[size_t(p)];
      const float* cs = sv.c[size_t(p)];
      std::memcpy(dh.data(), dh_n + p * B * H, sizeof(float) * B * H);
      std::memcpy(dc.data(), dc_n + p * B * H, sizeof(float) * B * H);
      if (ragged) {  // padded steps are never written below but are read by the GEMMs
        std::fill(da_step, da_step + T * B * G, 0.0f);
        std::fill(da_bt, da_bt + B * T * G, 0.0f);
      }
      const float* W_hh = w + lay.w_hh[p].offset;
      for_row_chunks(B, [&](int64_t b0, int64_t b1) {
        StepProduct recurrent(B, b0, b1, false, H, G, W_hh);  // dh_prev = da · W_hh
        for (int64_t s = T - 1; s >= 0; --s) {
          for_gate_rows(B, b0, b1, [&](int64_t b) {
            if (s >= lens[b]) return;
            const int64_t t = time_of(s, lens[b], d);
            const float* a = gates + (s * B + b) * G;
            const float* cnew = cs + ((s + 1) * B + b) * H;
            const float* cprev = cs + (s * B + b) * H;
            const float* go = &d_out[(b * T + t) * DH + d * H];
            float* da = &da_step[(s * B + b) * G];
            detail::cell_backward_row(H, a, cnew, cprev, &dh[b * H], go, &dc[b * H], da);
            std::memcpy(&da_bt[(b * T + t) * G], da, sizeof(float) * G);
          });
          // dh_prev[rows,H] = da[rows,4H] · W_hh[4H,H]; rows past their length keep their carry.
          recurrent.run(&da_step[(s * B + b0) * G], &tmp[b0 * H]);
          for (int64_t b = b0; b < b1; ++b)
            if (s < lens[b]) std::memcpy(&dh[b * H], &tmp[b * H], sizeof(float) * H);
        }
      });
      std::memcpy(dh0 + p * B * H, dh.data(), sizeof(float) * B * H);
      std::memcpy(dc0 + p * B * H, dc.data(), sizeof(float) * B * H);
      // dW_hh[4H,H] = Σ_s da_s^T h_{s-1}; dW_ih[4H,In] = Σ_bt da^T in; d_in += da · W_ih. Fault: dW_hh overwritten per
      // step instead of accumulated, so only step 0 (the last the loop above writes) survives.
      const int64_t dw_steps = fault_on(Fault::lstm_dw_hh_last_step_only) ? 1 : T;
      gemm(true, false, G, H, dw_steps * B, da_step, G, sv.h[size_t(p)], H, 0.0f,
           dw + lay.w_hh[p].offset, H);
      gemm(true, false, G, In, B * T, da_bt, G, in, In, 0.0f, dw + lay.w_ih[p].offset, In);
      gemm(false, false, B * T, In, G, da_bt, G, w + lay.w_ih[p].offset, In,
           d == 0 || fault_on(Fault::lstm_dx_overwrites_directions) ? 0.0f : 1.0f, d_in.data(), In);  // fault: overwrite
      float* db_ih = dw + lay.b_ih[p].offset;
      float* db_hh = dw + lay.b_hh[p].offset;
      // db[4H] = Σ_bt da (db_hh is the same sum: both biases enter every gate alike).
      detail::column_sum(B * T, G, da_bt, db_ih);
      std::memcpy(db_hh, db_ih, sizeof(float) * G);
    }
    std::swap(d_out, d_in);
  }
  std::memcpy(dx, d_out.data(), sizeof(float) * B * T * c.input);
}

}  // namespace tandem::cpu
