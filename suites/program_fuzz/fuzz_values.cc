// Random tensors with special values; every value is rounded to its dtype by the reference's
// rounding (exact), so the engine and the reference start from the same numbers.
#include "suites/program_fuzz/fuzz_values.h"

#include <cmath>
#include <limits>

#include "bridge/reference_bridge.h"
#include "reference/array.h"
#include "suites/program_fuzz/fuzz_limits.h"

namespace tandem::fuzz {
namespace {

// Mantissa bits (excluding the implicit one) of the formats narrower than t whose ties t
// can hold exactly: a tie of a p-bit format is 1 + 2^-(p+1) (even neighbour 1 below) and
// 1 + 3·2^-(p+1) (even neighbour 1 + 2^-(p-1) above).
std::vector<int> narrower_mantissas(DType t) {
  switch (t) {
    case DType::f64: return {23, 10, 7, 3, 2};
    case DType::f32: return {10, 7, 3, 2};
    case DType::f16: return {7, 3, 2};
    case DType::bf16: return {3, 2};
    default: return {};
  }
}

}  // namespace

std::vector<double> special_values(DType t) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v = {0.0, -0.0, inf, -inf, std::numeric_limits<double>::quiet_NaN(),
                           smallest_subnormal(t), -3 * smallest_subnormal(t), largest_finite(t), -largest_finite(t)};
  for (int p : narrower_mantissas(t)) {
    const double half = std::ldexp(1.0, -(p + 1));
    v.push_back(1 + half);       // even neighbour below
    v.push_back(1 + 3 * half);   // even neighbour above
    v.push_back(-(1 + half));
    v.push_back(-(1 + 3 * half));
  }
  return v;
}

Tensor random_tensor(Rng& rng, const AType& type, double special_rate) {
  const int64_t n = num_elements(type.shape);
  std::vector<double> values(static_cast<size_t>(n));
  const std::vector<double> specials = is_floating(type.dtype) ? special_values(type.dtype) : std::vector<double>{};
  for (double& x : values) {
    if (type.dtype == DType::pred) x = double(rng.in(0, 1));
    else if (type.dtype == DType::i32) x = double(rng.in(-5, 5));
    else if (rng.chance(special_rate)) {
      x = rng.pick(specials);
      // A tie stays a tie under a power-of-two scale (unless it leaves the normal range).
      if (std::isfinite(x) && std::fabs(x) > 0.5 && std::fabs(x) < 2) x = std::ldexp(x, int(rng.in(-3, 3)));
    } else {
      x = rng.uniform(-2, 2);
    }
  }
  return from_ref(ref::make(type.shape, type.dtype, values));
}

}  // namespace tandem::fuzz
