// The fuzzer's input values: uniform values of each dtype mixed with the values where
// numerics go wrong — ±0, ±Inf, NaN, subnormals, the largest finite value, and values that
// sit exactly on a rounding tie of a narrower format (bf16, f16, f8 e4m3 / e5m2, and f32 for
// f64), both the tie whose even neighbour is below and the one whose even neighbour is
// above, scaled by powers of two so they stay ties.
#pragma once
#include "engine/core/tensor.h"
#include "suites/program_fuzz/fuzz_rng.h"

namespace tandem::fuzz {

// special_rate: the probability that an element is drawn from the special values.
Tensor random_tensor(Rng& rng, const AType& type, double special_rate);

// The special values of a floating dtype, each exactly representable in it.
std::vector<double> special_values(DType t);

}  // namespace tandem::fuzz
