// dot_general with JAX dimension numbers, computed exactly enough to be the oracle for every
// precision / DotAlgorithm: products and sums in long double, one rounding at the end.
#pragma once
#include <vector>

#include "reference/array.h"

namespace tandem::ref {

struct DotDims {
  std::vector<int64_t> lhs_contract, rhs_contract;  // paired, equal sizes
  std::vector<int64_t> lhs_batch, rhs_batch;        // paired, equal sizes
};

// lhs: [...], rhs: [...] -> [batch..., lhs free..., rhs free...], where batch dims follow
// lhs_batch's order and free dims keep their operand order. Each output element is
// sum over the contracting index of lhs * rhs, accumulated in long double (x86: 64-bit
// significand) and rounded once to out_dtype (DType::f64 keeps the accumulated value).
// A contraction of size 0 gives zeros. i32 x i32 -> i32 is exact integer arithmetic that
// wraps. pred operands are rejected. Computed cache-blocked and threaded over output rows
// (std::thread, for dots of more than ~2^22 products), each sum in the same order as
// dot_general_simple, hence the same bits.
Array dot_general(const Array& lhs, const Array& rhs, const DotDims& dims, DType out_dtype);

// The same, one output element at a time in a plain loop (the definition, kept for the test
// that dot_general equals it bit for bit).
Array dot_general_simple(const Array& lhs, const Array& rhs, const DotDims& dims, DType out_dtype);

}  // namespace tandem::ref
