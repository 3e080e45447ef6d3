// The narrow-accumulator dot presets' CPU loop (F16_F16_F16, BF16_BF16_BF16): every output's
// sum is acc = round(acc + a·b) term after term from k = 0, as a GPU with a 16-bit accumulator
// would; products of 16-bit inputs are exact in f32. The loop runs a block of output columns side
// by side, each column its own sequence of adds, so it gives the one-element-at-a-time loop's
// bits (dot_narrow_test.cc) while the compiler vectorises it (TANDEM_VECTOR_CLONES).
#pragma once
#include <cstdint>

namespace tandem::cpu {

enum class NarrowFormat { f16, bf16 };

// round_to_f16 / round_to_bf16 of engine/core/half.h without branches (what lets the loop
// vectorise), bit for bit the same on every f32 (NaN payloads included).
float round_to_f16_select(float x);
float round_to_bf16_select(float x);

// c[i][j] = the narrow sum over k of a[i·lda + k] · b[k·ldb + j], i < m, j < n (row-major
// operands, c with n columns).
void narrow_matmul(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t m, int64_t n,
                   int64_t k, NarrowFormat format);

}  // namespace tandem::cpu
