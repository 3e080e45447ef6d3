// cpu::sgemm (sgemm.h): oneDNN's dnnl_sgemm in a oneDNN build, cblas_sgemm otherwise or when
// oneDNN declines a call.
#include "engine/cpu/sgemm.h"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#ifdef TANDEM_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
extern "C" int omp_get_max_threads(void);
extern "C" void omp_set_num_threads(int);
#endif
#ifdef TANDEM_BLAS_OPENBLAS
extern "C" int openblas_get_num_threads(void);
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
#ifdef TANDEM_BLAS_OPENBLAS
  const int want = openblas_get_num_threads();
#else
  const int want = 0;
#endif
  const int before = omp_get_max_threads();
  if (want > 0 && want != before) omp_set_num_threads(want);
  auto ld = [](int64_t x) { return std::max<int64_t>(1, x); };
  const dnnl_status_t s =
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, alpha, A, ld(lda), B, ld(ldb), beta, C, ld(ldc));
  if (want > 0 && want != before) omp_set_num_threads(before);
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
