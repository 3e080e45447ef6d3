// cpu::sgemm (sgemm.h): oneDNN's dnnl_sgemm in a oneDNN build, its output shared over the
// threads in blocks; cblas_sgemm otherwise or when oneDNN declines a call.
#include "engine/cpu/sgemm.h"

#include "engine/core/omp_threads.h"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#ifdef TANDEM_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#endif

namespace tandem::cpu {
namespace {

void blas_sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  auto ld = [](int64_t x) { return int(std::max<int64_t>(1, x)); };
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, int(M), int(N), int(K),
              alpha, A, ld(lda), B, ld(ldb), beta, C, ld(ldc));
}

bool use_onednn() {
#ifdef TANDEM_HAVE_ONEDNN
  static const bool on = [] {
    const char* e = std::getenv("TANDEM_SGEMM");
    return !(e && std::string(e) == "blas");
  }();
  return on;
#else
  return false;
#endif
}

#ifdef TANDEM_HAVE_ONEDNN
bool dnnl_call(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
               const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  auto ld = [](int64_t x) { return std::max<int64_t>(1, x); };
  return !dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, alpha, A, ld(lda), B, ld(ldb), beta, C, ld(ldc));
}

// Blocks start at multiples of one AVX-512 register of f32; a thread gets one only with at least
// this many multiply-adds to do, below which waking it costs more than it saves.
constexpr int64_t kBlockAlign = 16;
constexpr int64_t kMinMacsPerThread = int64_t(1) << 16;

// C's rows (M ≥ N) or columns in `blocks` blocks, one per OpenMP thread, each a single-threaded
// dnnl_sgemm: oneDNN cuts K of a product with few rows, slower on 2 threads than on one
// (lab/pages/program.md). Each element is summed as one thread sums it; a refused block goes to the BLAS.
void split_sgemm(int blocks, bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                 int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  const bool by_rows = M >= N;
  const int64_t extent = by_rows ? M : N, units = (extent + kBlockAlign - 1) / kBlockAlign;  // last may be short
  const int64_t step = (units + blocks - 1) / blocks * kBlockAlign;
#pragma omp parallel num_threads(blocks)
  {
    const int64_t begin = omp_get_thread_num() * step, end = std::min(extent, begin + step);
    if (begin < end) {
      const int64_t rows = by_rows ? end - begin : M, cols = by_rows ? N : end - begin;
      const float* a = by_rows ? A + (ta ? begin : begin * lda) : A;
      const float* b = by_rows ? B : B + (tb ? begin * ldb : begin);
      float* c = C + (by_rows ? begin * ldc : begin);
      omp_set_num_threads(1);  // a nested region (OMP_MAX_ACTIVE_LEVELS > 1) would share the core
      if (!dnnl_call(ta, tb, rows, cols, K, alpha, a, lda, b, ldb, beta, c, ldc))
        blas_sgemm(ta, tb, rows, cols, K, alpha, a, lda, b, ldb, beta, c, ldc);
    }
  }
}

// dnnl_sgemm on OpenBLAS's thread count, split by output blocks where it pays, else whole (the
// calling thread's OpenMP setting put back after); false when oneDNN refuses a whole call.
bool onednn_sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                  const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  // As many blocks as threads, aligned blocks and kMinMacsPerThread allow (1: not cut).
  const int64_t by_size = std::max(M, N) / kBlockAlign, by_work = M * N * K / kMinMacsPerThread;
  const int blocks = omp_in_parallel() ? 1 : int(std::clamp<int64_t>(std::min(by_size, by_work), 1, worker_threads()));
  if (blocks > 1) { split_sgemm(blocks, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc); return true; }
  bool ok = false;
  with_omp_threads(blas_thread_count(), [&] { ok = dnnl_call(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc); });
  return ok;
}
#endif

}  // namespace

void sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B,
           int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
#ifdef TANDEM_HAVE_ONEDNN
  if (K > 0 && use_onednn() && onednn_sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)) return;
#endif
  blas_sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

const char* sgemm_library() { return use_onednn() ? "onednn" : "blas"; }

}  // namespace tandem::cpu
