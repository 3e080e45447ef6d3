// Measures sgemm of each candidate CPU BLAS on this machine, to choose tandem's BLAS
// (docs/PERFORMANCE.md). Each library is dlopen'ed privately so both can be timed in one
// process on the same operands: `build/tools/blas_sgemm_compare libopenblas.so.0 libblis.so.4`.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using sgemm_fn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                          int, float, float*, int);
constexpr int kRowMajor = 101, kNoTrans = 111;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s LIB.so [LIB.so ...]\n  hint: e.g. libopenblas.so.0 libblis.so.4\n", argv[0]);
    return 4;
  }
  std::printf("| library | N | GFLOP/s (median of 7) |\n|---|---|---|\n");
  for (int li = 1; li < argc; ++li) {
    void* h = dlopen(argv[li], RTLD_NOW | RTLD_LOCAL);
    if (!h) { std::fprintf(stderr, "error: cannot load %s: %s\n", argv[li], dlerror()); return 4; }
    auto sgemm = reinterpret_cast<sgemm_fn>(dlsym(h, "cblas_sgemm"));
    if (!sgemm) { std::fprintf(stderr, "error: %s has no cblas_sgemm\n", argv[li]); return 4; }
    for (int n : {512, 1024, 2048}) {
      std::vector<float> a(size_t(n) * n), b(size_t(n) * n), c(size_t(n) * n);
      std::mt19937 rng(1);
      std::uniform_real_distribution<float> u(-1, 1);
      for (float& x : a) x = u(rng);
      for (float& x : b) x = u(rng);
      std::vector<double> t;
      for (int rep = 0; rep < 8; ++rep) {
        auto t0 = std::chrono::steady_clock::now();
        sgemm(kRowMajor, kNoTrans, kNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (rep > 0) t.push_back(s);  // the first call warms up
      }
      std::sort(t.begin(), t.end());
      std::printf("| %s | %d | %.1f |\n", argv[li], n, 2.0 * n * n * double(n) / t[t.size() / 2] * 1e-9);
    }
  }
  return 0;
}
