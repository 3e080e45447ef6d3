// dot_general with JAX dimension numbers, computed exactly enough to be the oracle for every
// precision / DotAlgorithm: products and sums compensated (double-double), one rounding at the end.
#pragma once
#include <vector>

#include "reference/array.h"

namespace tandem::ref {

struct DotDims {
  std::vector<int64_t> lhs_contract, rhs_contract;  // paired, equal sizes
  std::vector<int64_t> lhs_batch, rhs_batch;        // paired, equal sizes
};

// lhs: [...], rhs: [...] -> [batch..., lhs free..., rhs free...], where batch dims follow lhs_batch's order and free
// dims keep their operand order. Each output element is sum over the contracting index of lhs * rhs, accumulated
// compensated (dot_f64.h's plain_sum_dot2: as if in twice double's precision, better than long double's 64 bits for any
// K below 2^42) and rounded once to out_dtype (DType::f64 keeps the accumulated value). A contraction of size 0 gives
// zeros. i32 x i32 -> i32 is exact integer arithmetic that wraps. pred operands are rejected. Computed cache-blocked
// and threaded over output rows (std::thread, for dots of more than ~2^22 products), each sum in the same order as
// dot_general_simple, hence the same bits.
Array dot_general(const Array& lhs, const Array& rhs, const DotDims& dims, DType out_dtype);

// How dot_general accumulates on this thread. compensated is the definition above: the truth.
// f64 sums each element in double, in the same order (products rounded, no fused multiply-add),
// vectorised across output columns, ~10x faster: for callers that round every dot result to
// f32 or narrower and add an error bound of their own, such as the fuzz oracle's own-dtype
// model runs (suites/program_fuzz/fuzz_oracle.h), whose bound (K·2^-24·Σ|a||b| and up) is
// 2^29 times what double accumulation changes (K·2^-53·Σ|a||b|). Integer dots stay exact.
enum class Accumulation { compensated, f64 };
Accumulation accumulation();
// Sets the mode for this thread until the object goes out of scope (the previous mode back).
class ScopedAccumulation {
 public:
  explicit ScopedAccumulation(Accumulation a);
  ~ScopedAccumulation();
  ScopedAccumulation(const ScopedAccumulation&) = delete;
  ScopedAccumulation& operator=(const ScopedAccumulation&) = delete;

 private:
  Accumulation previous_;
};

// The same, one output element at a time in a plain loop (the definition, kept for the test
// that dot_general equals it bit for bit).
Array dot_general_simple(const Array& lhs, const Array& rhs, const DotDims& dims, DType out_dtype);

}  // namespace tandem::ref
