// cpu_peak: the machine's f32 FMA limit, measured — the roof every CPU kernel's GFLOP/s is set
// against (lab/pages/dot.md, "The machine's limit"). Each thread runs chains of fused
// multiply-adds on independent vector accumulators (enough to cover the FMA latency on every
// port), in registers, with no memory traffic; GFLOP/s counts 2 per lane per FMA, best of 5.
// Widths: AVX-512 (16 lanes) and AVX2 (8), each only where the CPU has it; on aarch64 ASIMD
// (4 lanes, every arm64 CPU; SVE's wider vectors are not measured).
//   build/lab/cpu_peak [--threads N ...]     (default: 1 and every core)
#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "lab/bench/count_arg.h"

namespace {

constexpr long kIters = 20'000'000;

// 12 independent accumulators per thread, FMA'd kIters times; the lane sum keeps them alive.
#define TANDEM_FMA_CHAINS(V, FMA, SET1, ADD)                     \
  V acc[12];                                                     \
  for (V& a : acc) a = SET1(0.999f);                             \
  const V m = SET1(0.999f), b = SET1(1e-3f);                     \
  for (long i = 0; i < kIters; ++i)                              \
    for (V& a : acc) a = FMA(a, m, b);                           \
  V s = acc[0];                                                  \
  for (int k = 1; k < 12; ++k) s = ADD(s, acc[k]);               \
  float lanes[sizeof(V) / sizeof(float)];                        \
  std::memcpy(lanes, &s, sizeof s);                              \
  return lanes[0];

#if defined(__x86_64__)
__attribute__((target("avx512f"))) float run512() {
  TANDEM_FMA_CHAINS(__m512, _mm512_fmadd_ps, _mm512_set1_ps, _mm512_add_ps)
}
__attribute__((target("avx2,fma"))) float run256() {
  TANDEM_FMA_CHAINS(__m256, _mm256_fmadd_ps, _mm256_set1_ps, _mm256_add_ps)
}
#elif defined(__aarch64__)
inline float32x4_t fma128(float32x4_t a, float32x4_t m, float32x4_t b) { return vfmaq_f32(b, a, m); }  // a*m + b
float run128() { TANDEM_FMA_CHAINS(float32x4_t, fma128, vdupq_n_f32, vaddq_f32) }
#endif
#undef TANDEM_FMA_CHAINS

// GFLOP/s of `threads` threads each running `body` once; best of 5.
double rate(int threads, int lanes, float (*body)()) {
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    std::vector<std::thread> pool;
    std::vector<float> sink(static_cast<size_t>(threads));
    auto t0 = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { sink[size_t(t)] = body(); });
    for (auto& th : pool) th.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (sink[0] == 12345.f) std::puts("");  // keeps the chains alive
    best = std::max(best, 2.0 * lanes * 12 * double(kIters) * threads / s * 1e-9);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> counts;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) != "--threads" || i + 1 == argc) {
      std::fprintf(stderr, "error: unknown option or missing value: %s\n  hint: cpu_peak [--threads N ...]\n", argv[i]);
      return 4;
    }
    const auto n = tandem::count_arg(argv[++i], 1, 4096);
    if (!n) {
      std::fprintf(stderr, "error: --threads takes a count of 1 or more, not '%s'\n  hint: cpu_peak --threads 1\n", argv[i]);
      return 4;
    }
    counts.push_back(int(*n));
  }
  if (counts.empty()) counts = {1, int(std::thread::hardware_concurrency())};
  std::printf("| width | threads | f32 FMA GFLOP/s (best of 5) |\n|---|---:|---:|\n");
  for (int n : counts) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f")) std::printf("| AVX-512 | %d | %.1f |\n", n, rate(n, 16, run512));
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) std::printf("| AVX2 | %d | %.1f |\n", n, rate(n, 8, run256));
#elif defined(__aarch64__)
    std::printf("| ASIMD | %d | %.1f |\n", n, rate(n, 4, run128));
#endif
  }
  return 0;
}
