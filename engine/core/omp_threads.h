// The thread count of the CPU's f32 products, one knob for every library that runs them:
// OpenBLAS's count (OPENBLAS_NUM_THREADS), which oneDNN's products follow through the calling
// thread's OpenMP setting (Debian's oneDNN runs on OpenMP). with_omp_threads sets that setting
// for one product and puts it back, so callers' own settings survive.
#pragma once

#ifdef TANDEM_BLAS_OPENBLAS
extern "C" int openblas_get_num_threads(void);
#endif
#ifdef TANDEM_HAVE_ONEDNN
#include <omp.h>  // declarations only: a file without -fopenmp still links libgomp's functions
#endif

namespace tandem::cpu {

// OpenBLAS's thread count, or 0 (the library's default) under another BLAS.
inline int blas_thread_count() {
#ifdef TANDEM_BLAS_OPENBLAS
  return openblas_get_num_threads();
#else
  return 0;
#endif
}

#ifdef TANDEM_HAVE_ONEDNN
// How many threads the engine's own parallel loops use: the same knob as the products.
inline int worker_threads() { return blas_thread_count() > 0 ? blas_thread_count() : omp_get_max_threads(); }

// Runs fn with the calling thread's OpenMP thread count set to n (0: left as it is).
template <class F>
void with_omp_threads(int n, F&& fn) {
  const int before = omp_get_max_threads();
  if (n > 0 && n != before) omp_set_num_threads(n);
  fn();
  if (n > 0 && n != before) omp_set_num_threads(before);
}
#endif

}  // namespace tandem::cpu
