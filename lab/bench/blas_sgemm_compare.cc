// Measures sgemm of each candidate CPU BLAS on this machine, to choose tandem's BLAS and to
// find the peer's best configuration for dot_general (lab/pages/dot.md). Each library
// is dlopen'ed privately so all can be timed in one process on the same operands:
// `build/lab/blas_sgemm_compare libopenblas.so.0 libblis.so.4 libdnnl.so.2`. A library
// without cblas_sgemm is called through oneDNN's dnnl_sgemm (row-major, 64-bit dims) when it
// has that. Threads come from each library's own environment variable (OPENBLAS_NUM_THREADS,
// BLIS_NUM_THREADS, OMP_NUM_THREADS for oneDNN's OpenMP build).
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using cblas_sgemm_fn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                                float*, int);
using dnnl_sgemm_fn = int (*)(char, char, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                              int64_t, float, float*, int64_t);
constexpr int kRowMajor = 101, kNoTrans = 111;
using Square = std::function<void(int n, const float* a, const float* b, float* c)>;

// C = A·B for square row-major n×n operands through the library's sgemm, or an empty function.
Square find_sgemm(void* lib) {
  if (auto f = reinterpret_cast<cblas_sgemm_fn>(dlsym(lib, "cblas_sgemm")))
    return [f](int n, const float* a, const float* b, float* c) {
      f(kRowMajor, kNoTrans, kNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    };
  if (auto f = reinterpret_cast<dnnl_sgemm_fn>(dlsym(lib, "dnnl_sgemm")))
    return [f](int n, const float* a, const float* b, float* c) { f('N', 'N', n, n, n, 1.0f, a, n, b, n, 0.0f, c, n); };
  return {};
}

// GFLOP/s of the median of 7 calls after one warm-up call.
double median_rate(const Square& sgemm, int n) {
  std::vector<float> a(size_t(n) * n), b(size_t(n) * n), c(size_t(n) * n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (float& x : a) x = u(rng);
  for (float& x : b) x = u(rng);
  std::vector<double> t;
  for (int rep = 0; rep < 8; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    sgemm(n, a.data(), b.data(), c.data());
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (rep > 0) t.push_back(s);  // the first call warms up
  }
  std::sort(t.begin(), t.end());
  return 2.0 * n * n * double(n) / t[t.size() / 2] * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s LIB.so [LIB.so ...]\n  hint: e.g. libopenblas.so.0 libblis.so.4 libdnnl.so.2\n",
                 argv[0]);
    return 4;
  }
  std::vector<Square> sgemms;  // every library checked before any is timed
  for (int li = 1; li < argc; ++li) {
    void* h = dlopen(argv[li], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      std::fprintf(stderr, "error: cannot load %s: %s\n  hint: a library `ldconfig -p` lists, or its path\n",
                   argv[li], dlerror());
      return 4;
    }
    sgemms.push_back(find_sgemm(h));
    if (!sgemms.back()) {
      std::fprintf(stderr, "error: %s has neither cblas_sgemm nor dnnl_sgemm\n  hint: name a BLAS or oneDNN\n", argv[li]);
      return 4;
    }
  }
  std::printf("| library | N | GFLOP/s (median of 7) |\n|---|---|---|\n");
  for (size_t i = 0; i < sgemms.size(); ++i) {
    for (int n : {512, 1024, 2048}) std::printf("| %s | %d | %.1f |\n", argv[i + 1], n, median_rate(sgemms[i], n));
    std::fflush(stdout);
  }
  return 0;
}
