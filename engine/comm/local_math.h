// The element math of LocalOps (local_ops.h), written once for the host loops
// (local_ops_host.cc) and the CUDA kernels (device_pack.cu): TANDEM_HD makes every function
// here __host__ __device__ under nvcc, so the MPI tests of the host path exercise the very
// index and rounding rules the NCCL path runs.
#pragma once
#include <cstdint>

#include "engine/core/half.h"

namespace tandem::comm::local_math {

// swap01: destination block j = b*A + a (b < B, a < A) comes from source block a*B + b.
TANDEM_HD inline int64_t swap01_source_block(int64_t j, int64_t A, int64_t B) { return (j % A) * B + j / A; }

// An element as a double (exact for every dtype): the values the host model compares.
TANDEM_HD inline double widen(double v) { return v; }
TANDEM_HD inline double widen(float v) { return v; }
TANDEM_HD inline double widen(f16 v) { return to_f32(v); }
TANDEM_HD inline double widen(bf16 v) { return to_f32(v); }
TANDEM_HD inline double widen(int32_t v) { return v; }

TANDEM_HD inline void narrow(float r, double* o) { *o = r; }
TANDEM_HD inline void narrow(float r, float* o) { *o = r; }
TANDEM_HD inline void narrow(float r, f16* o) { *o = to_f16(r); }
TANDEM_HD inline void narrow(float r, bf16* o) { *o = to_bf16(r); }

// pmean (JAX): f64 sums divide in f64; every other sum (16-bit, f32, i32) converts to f32
// and divides in f32, then rounds once to the output type.
template <class In, class Out>
TANDEM_HD inline Out mean_of(In sum, int64_t n) {
  Out o;
  if constexpr (sizeof(Out) == 8) o = widen(sum) / double(n);
  else narrow(float(widen(sum)) / float(n), &o);
  return o;
}

constexpr int32_t kNoOffer = 2147483647;
// pargmax / pargmin: this member offers its index where it holds the best value; a NaN best
// is held by the members holding a NaN (pmax / pmin propagate NaN); -0 == +0.
template <class T>
TANDEM_HD inline int32_t offer(T x, T best, int32_t me) {
  const double a = widen(x), b = widen(best);
  return a == b || (a != a && b != b) ? me : kNoOffer;
}

// bool ↔ i32, as JAX converts: true → 1, false → 0; any nonzero → true.
TANDEM_HD inline int32_t i32_of(uint8_t b) { return b ? 1 : 0; }
TANDEM_HD inline uint8_t bool_of(int32_t v) { return v != 0 ? 1 : 0; }

}  // namespace tandem::comm::local_math
