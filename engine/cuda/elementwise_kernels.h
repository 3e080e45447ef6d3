// Launchers of the elementwise kernels (engine/cuda/elementwise_kernels.cu), called by the CUDA impls in
// elementwise_cuda.cc once shapes and dtypes are validated. Plain data only: this header is shared by nvcc (C++17) and
// the C++20 engine sources (the op tables' rows contribute only their names here). Each launcher runs on the current
// device's default stream and checks its launch; none synchronizes.
#pragma once
#include <cstdint>

#include "common/dtype.h"

namespace tandem::cuda_impl {

// One enumerator per row of engine/prims/unary_ops.def and binary_ops.def.
enum class UnaryOp : int {
#define TANDEM_UNARY(name, ...) name,
#include "engine/prims/unary_ops.def"
};
enum class BinaryOp : int {
#define TANDEM_BINARY(name, ...) name,
#include "engine/prims/binary_ops.def"
};
enum class CompareDir : int { eq, ne, lt, le, gt, ge };
// One enumerator per row of engine/prims/bitwise_ops.def (not, and, or, xor).
enum class BitwiseOp : int {
#define TANDEM_BITWISE(id, ...) id,
#include "engine/prims/bitwise_ops.def"
};

// One operand of a binary kernel: `scalar` reads element 0 for every output (a rank-0 operand against a ranked one).
struct Operand {
  const void* data = nullptr;
  bool scalar = false;
};

// y[i] = op(x[i]) in the compute type (f32 for bf16/f16). i32 only for neg, abs and sign.
void unary(UnaryOp op, DType t, const void* x, void* y, int64_t n);
// y[i] = x[i]^e by square-and-multiply (e >= 0 for i32; the caller checks).
void integer_pow(DType t, const void* x, void* y, int64_t n, int64_t e);
// out[i] = op(a[i], b[i]). Integer div by zero sets *div_by_zero to 1 (a fault flag the
// device can address, device_faults.h) and writes 0; the host reports it later.
void binary(BinaryOp op, DType t, Operand a, Operand b, void* out, int64_t n, int* div_by_zero);
// out[i] (bool as uint8_t) = a[i] <dir> b[i], every dtype.
void compare(CompareDir dir, DType t, Operand a, Operand b, uint8_t* out, int64_t n);
// out[i] (bool as uint8_t) = x[i] is neither ±Inf nor NaN; floating dtypes.
void is_finite(DType t, const void* x, uint8_t* out, int64_t n);
// out[i] = pred[i or 0] ? on_true[i] : on_false[i], elements of elem_bytes.
void select(const uint8_t* pred, bool pred_scalar, const void* on_true, const void* on_false,
            void* out, int64_t n, int elem_bytes);
// out[i] = op(a[i], b[i]) on bool (uint8_t 0/1) or i32; "not" reads a only (pass it as b too).
void bitwise(BitwiseOp op, DType t, Operand a, Operand b, void* out, int64_t n);
// y[i] = x[i] rounded to an integral value, half-way cases away from zero or to even (lax.round).
void round_integral(DType t, const void* x, void* y, int64_t n, bool to_nearest_even);
// dst[i] = src[i] converted as the CPU's convert_element_type does.
void convert_element(DType from, const void* src, DType to, void* dst, int64_t n);

}  // namespace tandem::cuda_impl
