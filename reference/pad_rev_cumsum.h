// rev, pad and cumsum with lax's semantics, as plain loops over row-major indices.
#pragma once
#include <vector>

#include "reference/array.h"

namespace tandem::ref {

// x reversed along each of `dimensions` (distinct, in [0, rank)); same shape and dtype.
Array rev(const Array& x, const std::vector<int64_t>& dimensions);

// lax.pad: per dimension d, low[d] copies of the padding value, then x's elements with
// interior[d] (>= 0) copies between neighbours, then high[d]; a negative low/high removes
// elements from that end instead. Output size low + high + (n ? 1 + (n-1)(interior+1) : 0),
// which must be >= 0. padding_value: a rank-0 array of x's dtype.
Array pad(const Array& x, const Array& padding_value, const std::vector<int64_t>& low,
          const std::vector<int64_t>& high, const std::vector<int64_t>& interior);

// Inclusive prefix sums along `axis` (in [0, rank)), from the end when reverse. f64/f32: each
// sum exact in f64, rounded once to x's dtype; i32 wraps; bf16/f16 accumulate in their own
// format, every partial sum rounded, as XLA's CPU cumsum (lax.cumsum of bf16 [256, 1, 1] is
// [256, 256, 256]). pred is rejected.
Array cumsum(const Array& x, int64_t axis, bool reverse);

}  // namespace tandem::ref
