// The engine's f32 matrix product, row-major C = alpha·op(A)·op(B) + beta·C: oneDNN's
// dnnl_sgemm when tandem is built with oneDNN, else the BLAS's cblas_sgemm. On this project's
// AVX-512 machine OpenBLAS 0.3.21 runs its AVX2 kernels at about half of what oneDNN reaches
// (lab/pages/dot.md, "The BLAS at its best configuration"), so a oneDNN build takes
// oneDNN. TANDEM_SGEMM=blas picks cblas_sgemm in a oneDNN build, to compare the two in one run.
// Threads follow OPENBLAS_NUM_THREADS (OpenBLAS's count) whichever library runs, so that one
// knob sets every product; a caller holding OpenBLAS to one thread holds oneDNN to one too.
#pragma once

#include <cstdint>

namespace tandem::cpu {

void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
           const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

// "onednn" or "blas": which library sgemm calls in this process (the build and TANDEM_SGEMM).
const char* sgemm_library();

}  // namespace tandem::cpu
