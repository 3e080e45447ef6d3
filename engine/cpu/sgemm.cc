// cpu::sgemm (sgemm.h): oneDNN's dnnl_sgemm in a oneDNN build, cblas_sgemm otherwise or when
// oneDNN declines a call.
#include "engine/cpu/sgemm.h"

#include "engine/cpu/omp_threads.h"

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
// dnnl_sgemm on OpenBLAS's thread count (the calling thread's OpenMP setting put back after);
// false when oneDNN refuses the call, which then goes to the BLAS.
bool onednn_sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                  const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  auto ld = [](int64_t x) { return std::max<int64_t>(1, x); };
  dnnl_status_t s = dnnl_success;
  with_omp_threads(blas_thread_count(), [&] {
    s = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, alpha, A, ld(lda), B, ld(ldb), beta, C, ld(ldc));
  });
  return s == dnnl_success;
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
