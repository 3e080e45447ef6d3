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

}  // namespace tandem::ref
