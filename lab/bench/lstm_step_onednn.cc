// Micro-benchmark behind lab/pages/lstm.md "LSTM step GEMM through oneDNN":
// the LSTM kernel's per-step recurrent products, forward R[B,4H] = h[B,H]·W_hh^T and backward
// dh[B,H] = da[B,4H]·W_hh, timed (a) through cblas_sgemm as engine/cpu/lstm_cpu.cc calls it
// (OpenBLAS re-packs W_hh on every call) and (b) through a oneDNN matmul primitive created once
// with weights in format_tag::any, reordered once, executed per step. Process CPU time, the
// two libraries interleaved per round, min over rounds. Run with one thread on both sides:
//   OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 build/lab/lstm_step_onednn [ROUNDS] [STEPS]
#include <cblas.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <vector>

#include "lab/bench/count_arg.h"

namespace {

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

// One direction's product C[M,N] = A[M,K] · Wop, Wop[K,N] stored with the given tag
// (ba: W_hh^T read from W_hh [N,K] row-major; ab: W_hh [K,N] as is).
struct Case {
  const char* name;
  int64_t M, K, N;
  bool w_transposed;  // Wop = W^T, W row-major [N,K]
};

struct OneDnnProduct {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::matmul prim;
  memory src, wts, dst;
  OneDnnProduct(const Case& c, float* a, float* w, float* out) {
    memory::desc a_md({c.M, c.K}, dt::f32, tag::ab);
    memory::desc w_any({c.K, c.N}, dt::f32, tag::any);
    memory::desc w_user({c.K, c.N}, dt::f32, c.w_transposed ? tag::ba : tag::ab);
    memory::desc c_md({c.M, c.N}, dt::f32, tag::ab);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, w_any, c_md), eng);
    prim = dnnl::matmul(pd);
    src = memory(a_md, eng, a);
    dst = memory(c_md, eng, out);
    memory user(w_user, eng, w);
    wts = memory(pd.weights_desc(), eng);
    dnnl::reorder(user, wts).execute(strm, user, wts);  // once, as a kernel call would
    strm.wait();
  }
  void run() {
    prim.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wts}, {DNNL_ARG_DST, dst}});
    strm.wait();
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int rounds = int(argc > 1 ? tandem::count_arg(argv[1], 1, 100000).value_or(0) : 7);
  const int steps = int(argc > 2 ? tandem::count_arg(argv[2], 1, 100000).value_or(0) : 200);
  if (rounds < 1 || steps < 1) {
    std::fprintf(stderr, "error: ROUNDS and STEPS must be positive\n  hint: %s 7 200\n", argv[0]);
    return 4;
  }
  // The three perf shapes' step products (B, H): DeepBench and fastrnns B64 H512, bidi B32 H256.
  struct Shape { const char* name; int64_t B, H; };
  const Shape shapes[] = {{"DeepBench B64 H512", 64, 512}, {"fastrnns B64 H512", 64, 512}, {"bidi B32 H256", 32, 256}};
  std::printf("| shape | product | M K N | OpenBLAS µs/step | oneDNN µs/step | oneDNN/OpenBLAS time | oneDNN GFLOP/s |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const Shape& s : shapes) {
    const int64_t H = s.H, G = 4 * H, B = s.B;
    const Case cases[] = {{"fwd h·W_hh^T", B, H, G, true}, {"bwd da·W_hh", B, G, H, false}};
    std::vector<float> W(size_t(G * H));
    for (float& x : W) x = u(rng) * 0.05f;
    for (const Case& c : cases) {
      std::vector<float> a(size_t(c.M * c.K)), out_blas(size_t(c.M * c.N)), out_dnnl(size_t(c.M * c.N));
      for (float& x : a) x = u(rng);
      OneDnnProduct d(c, a.data(), W.data(), out_dnnl.data());
      auto blas = [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, c.w_transposed ? CblasTrans : CblasNoTrans, int(c.M), int(c.N),
                    int(c.K), 1.0f, a.data(), int(c.K), W.data(), c.w_transposed ? int(c.K) : int(c.N), 0.0f,
                    out_blas.data(), int(c.N));
      };
      blas();
      d.run();
      double max_diff = 0;
      for (size_t i = 0; i < out_blas.size(); ++i)
        max_diff = std::max(max_diff, double(std::abs(out_blas[i] - out_dnnl[i])));
      if (max_diff > 1e-3) {
        std::fprintf(stderr, "error: oneDNN and OpenBLAS products differ by %g\n", max_diff);
        return 1;
      }
      double best_b = 1e30, best_d = 1e30;
      for (int r = 0; r < rounds; ++r) {
        double t0 = cpu_seconds();
        for (int k = 0; k < steps; ++k) blas();
        double t1 = cpu_seconds();
        for (int k = 0; k < steps; ++k) d.run();
        double t2 = cpu_seconds();
        best_b = std::min(best_b, (t1 - t0) / steps);
        best_d = std::min(best_d, (t2 - t1) / steps);
      }
      const double flops = 2.0 * double(c.M) * double(c.K) * double(c.N);
      std::printf("| %s | %s | %lld %lld %lld | %.1f | %.1f | %.3f | %.1f |\n", s.name, c.name, (long long)c.M,
                  (long long)c.K, (long long)c.N, best_b * 1e6, best_d * 1e6, best_d / best_b, flops / best_d * 1e-9);
    }
  }
  return 0;
}
