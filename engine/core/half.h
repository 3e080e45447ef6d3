// bf16 and f16 storage types with round-to-nearest-even conversion from f32, handling NaN,
// Inf and subnormals. Bit manipulation rather than F16C so results are identical on any CPU,
// and on the GPU: under nvcc every function here is __host__ __device__, so the CUDA kernels
// convert with these very functions (TANDEM_HD).
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define TANDEM_HD __host__ __device__
#else
#define TANDEM_HD
#endif

namespace tandem {

// memcpy is a builtin in CUDA device code too, so one definition serves both sides.
TANDEM_HD inline uint32_t f32_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
TANDEM_HD inline float f32_from_bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

struct bf16 {
  uint16_t bits = 0;
  TANDEM_HD static bf16 from_bits(uint16_t b) { bf16 h; h.bits = b; return h; }
};
struct f16 {
  uint16_t bits = 0;
  TANDEM_HD static f16 from_bits(uint16_t b) { f16 h; h.bits = b; return h; }
};

TANDEM_HD inline float to_f32(bf16 h) { return f32_from_bits(uint32_t(h.bits) << 16); }

TANDEM_HD inline bf16 to_bf16(float f) {
  uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)  // NaN: keep sign, force a quiet payload bit
    return bf16::from_bits(uint16_t((u >> 16) | 0x0040u));
  // Round to nearest even on the 16 dropped bits; Inf stays Inf, overflow rounds to Inf.
  uint32_t lsb = (u >> 16) & 1u;
  u += 0x7fffu + lsb;
  return bf16::from_bits(uint16_t(u >> 16));
}

TANDEM_HD inline float to_f32(f16 h) {
  uint32_t sign = uint32_t(h.bits & 0x8000u) << 16;
  uint32_t exp = (h.bits >> 10) & 0x1fu;
  uint32_t man = h.bits & 0x3ffu;
  if (exp == 0x1f) return f32_from_bits(sign | 0x7f800000u | (man << 13));  // Inf / NaN
  if (exp == 0) {
    if (man == 0) return f32_from_bits(sign);
    // Subnormal: value = man * 2^-24, exact in f32.
    float v = float(man) * 0x1p-24f;
    return sign ? -v : v;
  }
  return f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
}

TANDEM_HD inline f16 to_f16(float f) {
  uint32_t u = f32_bits(f);
  uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return f16::from_bits(sign | 0x7e00u | uint16_t((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) return f16::from_bits(sign | 0x7c00u);  // rounds to >= 65520: Inf
  if (a < 0x38800000u) {
    // Result is subnormal or zero in f16: round a * 2^24 to an integer, ties to even.
    // Done via an f32 add trick-free path: shift the full significand.
    if (a < 0x33000000u) return f16::from_bits(sign);  // < 2^-25: rounds to zero
    uint32_t e = a >> 23;                // biased f32 exponent (103..112)
    uint32_t m = (a & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - e;            // m * 2^(e-150) * 2^24 = m >> (126 - e)
    uint32_t q = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return f16::from_bits(uint16_t(sign | q));
  }
  // Normal: rebias exponent, round 13 dropped bits to nearest even (carry may bump exponent).
  uint32_t lsb = (a >> 13) & 1u;
  a += 0xfffu + lsb;
  return f16::from_bits(uint16_t(sign | ((a - 0x38000000u) >> 13)));
}

// tf32: f32 with the low 13 mantissa bits rounded off (nearest even), as cuBLAS converts.
TANDEM_HD inline float round_to_tf32(float f) {
  uint32_t u = f32_bits(f);
  if ((u & 0x7f800000u) == 0x7f800000u) return f;  // Inf/NaN unchanged
  u += 0xfffu + ((u >> 13) & 1u);
  return f32_from_bits(u & 0xffffe000u);
}
TANDEM_HD inline float round_to_bf16(float f) { return to_f32(to_bf16(f)); }
TANDEM_HD inline float round_to_f16(float f) { return to_f32(to_f16(f)); }

}  // namespace tandem
