// cpu::sgemm against a plain triple loop in f64: every transpose pair, leading dimensions past
// the row, alpha and beta, and empty products. The bound is the f32 dot product's own:
// |error| ≤ (K + 2)·u·(|alpha|·Σ|a||b| + |beta·c|), u = 2^-24, doubled for headroom; a
// wrong transpose or a dropped beta misses it by orders of magnitude.
#include "engine/cpu/sgemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <cstdlib>
#include <string>
#include <vector>

namespace tandem::cpu {
namespace {

struct Case {
  bool ta, tb;
  int64_t M, N, K, pad;
  float alpha, beta;
};

void check(const Case& c) {
  std::mt19937 g(3);
  std::uniform_real_distribution<float> u(-1, 1);
  const int64_t a_rows = c.ta ? c.K : c.M, a_cols = (c.ta ? c.M : c.K), lda = a_cols + c.pad;
  const int64_t b_rows = c.tb ? c.N : c.K, b_cols = (c.tb ? c.K : c.N), ldb = b_cols + c.pad, ldc = c.N + c.pad;
  std::vector<float> A(size_t(a_rows * lda)), B(size_t(b_rows * ldb)), C(size_t(c.M * ldc));
  for (auto* v : {&A, &B, &C})
    for (float& x : *v) x = u(g);
  const std::vector<float> C0 = C;
  sgemm(c.ta, c.tb, c.M, c.N, c.K, c.alpha, A.data(), lda, B.data(), ldb, c.beta, C.data(), ldc);
  auto a = [&](int64_t i, int64_t k) { return double(c.ta ? A[size_t(k * lda + i)] : A[size_t(i * lda + k)]); };
  auto b = [&](int64_t k, int64_t j) { return double(c.tb ? B[size_t(j * ldb + k)] : B[size_t(k * ldb + j)]); };
  for (int64_t i = 0; i < c.M; ++i)
    for (int64_t j = 0; j < c.N; ++j) {
      double want = 0, mag = 0;
      for (int64_t k = 0; k < c.K; ++k) want += a(i, k) * b(k, j), mag += std::fabs(a(i, k) * b(k, j));
      const double c0 = C0[size_t(i * ldc + j)];
      want = c.alpha * want + c.beta * c0;
      const double bound = 2.0 * double(c.K + 2) * std::ldexp(1.0, -24) * (std::fabs(c.alpha) * mag + std::fabs(c.beta * c0));
      ASSERT_LE(std::fabs(C[size_t(i * ldc + j)] - want), bound)
          << "ta " << c.ta << " tb " << c.tb << " M " << c.M << " N " << c.N << " K " << c.K << " at " << i << "," << j;
    }
  for (int64_t i = 0; i < c.M; ++i)  // the padding past each row is never written
    for (int64_t j = c.N; j < ldc; ++j) ASSERT_EQ(C[size_t(i * ldc + j)], C0[size_t(i * ldc + j)]);
}

TEST(Sgemm, EveryTransposeMatchesTheLoop) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      check({ta, tb, 37, 29, 53, 0, 1.0f, 0.0f});
      check({ta, tb, 64, 128, 96, 5, 0.5f, 1.0f});
      check({ta, tb, 1, 300, 17, 3, -2.0f, 0.25f});
    }
}

#ifdef TANDEM_BLAS_OPENBLAS
extern "C" int openblas_get_num_threads(void);  // C linkage: the namespace does not enter the name
extern "C" void openblas_set_num_threads(int);
// Products cut into blocks of C (sgemm.cc) at three threads whatever the cores, so blocks are
// uneven: rows cut, columns cut, the long-K product, edges off the block alignment.
TEST(Sgemm, OutputCutIntoBlocksMatchesTheLoop) {
  const int before = openblas_get_num_threads();
  openblas_set_num_threads(3);
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      check({ta, tb, 32, 256, 1024, 0, 1.0f, 0.0f});
      check({ta, tb, 301, 47, 64, 3, 0.5f, 1.0f});
      check({ta, tb, 40, 97, 200, 2, -1.0f, 0.25f});
    }
  openblas_set_num_threads(before);
}
#endif

TEST(Sgemm, EmptyProductsLeaveCAsBetaScales) {
  check({false, false, 0, 8, 8, 0, 1.0f, 0.0f});
  check({false, true, 8, 0, 8, 0, 1.0f, 0.0f});
  check({true, false, 8, 8, 0, 2, 1.0f, 0.5f});  // K = 0: C = beta·C
}

TEST(Sgemm, NamesItsLibrary) {
  const std::string lib = sgemm_library();
  EXPECT_TRUE(lib == "onednn" || lib == "blas") << lib;
#ifdef TANDEM_HAVE_ONEDNN
  if (!std::getenv("TANDEM_SGEMM")) {
    EXPECT_EQ(lib, "onednn");
  }
#endif
}

}  // namespace
}  // namespace tandem::cpu
