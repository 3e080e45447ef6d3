// Elementwise reference ops: each result is computed in f64 and then rounded once to the
// output dtype, so float results are correctly rounded (transcendentals to within libm).
#pragma once
#include <string>
#include <vector>

#include "reference/array.h"

namespace tandem::ref {

// A unary op of the reference: its value and its derivative at x (y = value(x)); a null
// derivative makes it a constant on the tape (stop_gradient: no cotangent flows back, not a
// zero one, as JAX's symbolic zero). The one table of them (unary_ops) feeds both unary() and
// the tape's backward (grad_tape.cc), so a new unary op is one row in elementwise.cc.
struct UnaryOp {
  const char* name;
  double (*value)(double x);
  double (*derivative)(double x, double y);
};
const std::vector<UnaryOp>& unary_ops();
// The op named `op`; throws std::invalid_argument for a name not in unary_ops().
const UnaryOp& unary_op(const std::string& op);

// op: a name in unary_ops(). Float dtypes; "neg" also i32 (wrapping, so neg(INT32_MIN) =
// INT32_MIN). x: [...] -> [...], same dtype.
Array unary(const std::string& op, const Array& x);

// x^y for an integer y (y = 0 gives 1, even for 0 and NaN). Floats: pow in f64, rounded.
// i32: exact, wrapping modulo 2^32; a negative y is rejected, as JAX does for integers.
Array integer_pow(const Array& x, int64_t y);

// A binary op of the reference: its value on i32 (exact in int64, then wrapped) and on
// floats (f64, then rounded once), whether bool takes it, and its backward: the operands'
// cotangents ga, gb at x, y for the output's cotangent c. The one table of them
// (binary_ops) feeds binary() and the tape (grad_tape.cc): a new binary op is one row.
struct BinaryOp {
  const char* name;
  double (*i32)(int64_t a, int64_t b);
  double (*f64)(double a, double b);
  bool on_pred;
  void (*backward)(double x, double y, double c, double& ga, double& gb);
};
const std::vector<BinaryOp>& binary_ops();
// The op named `op`; throws std::invalid_argument for a name not in binary_ops().
const BinaryOp& binary_op(const std::string& op);

// op: a name in binary_ops(). a and b have one dtype and one shape, or one of
// them is rank 0 and broadcasts. i32 wraps; i32 div truncates toward zero (INT32_MIN / -1
// wraps to INT32_MIN) and throws on division by zero. max/min propagate NaN (as XLA).
// pred allows only max (or) and min (and).
Array binary(const std::string& op, const Array& a, const Array& b);

// direction: "eq" "ne" "lt" "le" "gt" "ge"; shapes as for binary; result dtype pred.
// Any comparison with NaN is false, except "ne" which is true.
Array compare(const Array& a, const Array& b, const std::string& direction);

// x floating -> pred of its shape: true where x is neither ±Inf nor NaN (lax.is_finite).
Array is_finite(const Array& x);

// pred: dtype pred, rank 0 or the shape of on_true; on_true/on_false: same shape and dtype.
Array select(const Array& pred, const Array& on_true, const Array& on_false);

// Value conversion. float -> i32 truncates toward zero, NaN -> 0, clamped to the int32
// range; anything -> pred is v != 0; pred -> number is 0 / 1; otherwise round_to(to, v).
Array convert(const Array& x, DType to);

// lax's not / and / or / xor (op "not" takes one operand, b ignored): pred operands give
// the logical result, i32 the bitwise one on two's complement; floats are rejected. Shapes as
// for binary; the result has the operands' dtype.
Array bitwise(const std::string& op, const Array& a, const Array& b);

// lax.round of floats: half-way cases away from zero ("AWAY_FROM_ZERO") or to the even
// neighbour ("TO_NEAREST_EVEN"); ±0, ±Inf and NaN stay themselves, -0.4 gives -0.
Array round(const Array& x, const std::string& rounding_method);

}  // namespace tandem::ref
