// The narrow-accumulator dot loop (dot_narrow.h). Built with -ffp-contract=off
// (engine/CMakeLists.txt): a fused a·b + acc would round once where the one-at-a-time loop
// rounds the product first (they differ when a bf16 product underflows f32's normal range).
#include "engine/cpu/dot_narrow.h"

#include <algorithm>
#include <bit>

#include "engine/cpu/vector_clones.h"

namespace tandem::cpu {
namespace {

constexpr int64_t kBlockCols = 128;  // a block's b panel (k × 128 floats) stays in L2 across the rows

// f16's grid from f32 bits, as to_f16 then to_f32 (half.h) round: NaN kept quiet with its top
// payload bits, |x| >= 65520 to Inf, the f16 subnormals (|x| < 2^-14) rounded to multiples of
// 2^-24 by one f32 add (0.5 + |x| lies in [0.5, 1), whose f32 spacing is 2^-24: the add
// rounds to nearest even there, then subtracting 0.5 is exact), the normals by dropping 13 bits.
inline float f16_select(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x), sign = u & 0x80000000u, a = u ^ sign;
  const uint32_t normal = (a + 0xfffu + ((a >> 13) & 1u)) & 0xffffe000u;
  const uint32_t sub = std::bit_cast<uint32_t>((std::bit_cast<float>(a) + 0.5f) - 0.5f);
  uint32_t r = a < 0x38800000u ? sub : normal;
  r = a >= 0x477ff000u ? 0x7f800000u : r;
  r = a > 0x7f800000u ? 0x7fc00000u | (a & 0x007fe000u) : r;
  return std::bit_cast<float>(sign | r);
}

// bf16's grid: drop 16 bits to nearest even (overflow carries into Inf), NaN made quiet.
inline float bf16_select(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  const uint32_t r = (u & 0x7fffffffu) > 0x7f800000u ? (u & 0xffff0000u) | 0x00400000u
                                                     : (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  return std::bit_cast<float>(r);
}

// One row block: acc[j] = round(acc[j] + a[kk]·b[kk][j]) for kk from 0, j < n (n <= kBlockCols).
template <class Round>
inline __attribute__((always_inline)) void row_block(const float* a, const float* b, int64_t ldb, int64_t k,
                                                      int64_t n, float* out, Round round) {
  float acc[kBlockCols] = {};
  for (int64_t kk = 0; kk < k; ++kk) {
    const float x = a[kk], *br = b + kk * ldb;
    for (int64_t j = 0; j < n; ++j) acc[j] = round(acc[j] + x * br[j]);
  }
  std::copy(acc, acc + n, out);
}

}  // namespace

// The loop's clones (outside the anonymous namespace: GCC's target_clones dispatches through
// an ifunc symbol).
TANDEM_VECTOR_CLONES void narrow_row_block_f16(const float* a, const float* b, int64_t ldb, int64_t k, int64_t n, float* out) {
  row_block(a, b, ldb, k, n, out, [](float v) { return f16_select(v); });
}
TANDEM_VECTOR_CLONES void narrow_row_block_bf16(const float* a, const float* b, int64_t ldb, int64_t k, int64_t n, float* out) {
  row_block(a, b, ldb, k, n, out, [](float v) { return bf16_select(v); });
}

float round_to_f16_select(float x) { return f16_select(x); }
float round_to_bf16_select(float x) { return bf16_select(x); }

void narrow_matmul(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t m, int64_t n,
                   int64_t k, NarrowFormat format) {
  auto block = format == NarrowFormat::f16 ? narrow_row_block_f16 : narrow_row_block_bf16;
  for (int64_t j0 = 0; j0 < n; j0 += kBlockCols)
    for (int64_t i = 0; i < m; ++i) block(a + i * lda, b + j0, ldb, k, std::min(kBlockCols, n - j0), c + i * n + j0);
}

}  // namespace tandem::cpu
