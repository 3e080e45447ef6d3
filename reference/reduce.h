// Reductions over a set of axes (JAX lax.reduce_sum / lax.reduce_max / lax.reduce_min semantics).
#pragma once
#include <vector>

#include "reference/array.h"

namespace tandem::ref {

// x: [s0..sn-1] -> x's shape without the listed axes (distinct, any order, in [0, n)).
// Floats accumulate in f64 and round once to x.dtype; i32 sums exactly and wraps. pred is
// rejected. An empty reduction gives 0.
Array reduce_sum(const Array& x, std::vector<int64_t> axes);

// Same shapes as reduce_sum. NaN propagates. An empty reduction gives -inf for floats,
// INT32_MIN for i32 and false for pred (where max is "or").
Array reduce_max(const Array& x, std::vector<int64_t> axes);

// Same as reduce_max with min: an empty reduction gives +inf, INT32_MAX, true (min is "and").
Array reduce_min(const Array& x, std::vector<int64_t> axes);

// The product, in f64 rounded once to x.dtype (floats); i32 wraps modulo 2^32. pred is
// rejected. An empty reduction gives 1.
Array reduce_prod(const Array& x, std::vector<int64_t> axes);

// lax.reduce_and / reduce_or: pred (all / any) or i32 (bitwise over the 32 bits). An empty
// reduction gives true / -1 (and), false / 0 (or).
Array reduce_and(const Array& x, std::vector<int64_t> axes);
Array reduce_or(const Array& x, std::vector<int64_t> axes);

// lax.argmax / argmin along one non-empty axis (in [0, rank)), as XLA computes them: the index
// of the first NaN if the row has one, else of the first largest (smallest) value. The
// result drops that axis and has dtype index_dtype (i32).
Array argmax(const Array& x, int64_t axis, DType index_dtype);
Array argmin(const Array& x, int64_t axis, DType index_dtype);

}  // namespace tandem::ref
