// The builder's lax.rem, lax.pow, bitwise ops, round, reduce_prod / reduce_and / reduce_or and
// argmax / argmin (builder_logical.cc), beside builder.h.
#pragma once
#include <string>
#include <vector>

#include "engine/ir/builder.h"

namespace tandem {

// lax.rem (C's fmod: the dividend's sign) and lax.pow (floats only).
Value rem(Value a, Value b);
Value pow(Value a, Value b);
// lax.bitwise_and / or / xor / not: bool operands give the logical result, i32 the bitwise one.
Value bitwise_and(Value a, Value b);
Value bitwise_or(Value a, Value b);
Value bitwise_xor(Value a, Value b);
Value bitwise_not(Value x);
// lax.round: rounding_method "AWAY_FROM_ZERO" (lax's default) or "TO_NEAREST_EVEN" (jnp.round's).
Value round(Value x, const std::string& rounding_method = "AWAY_FROM_ZERO");
Value reduce_prod(Value x, const std::vector<int64_t>& axes);
Value reduce_and(Value x, const std::vector<int64_t>& axes);  // bool or i32
Value reduce_or(Value x, const std::vector<int64_t>& axes);
// lax.argmax / argmin along one axis with i32 indices: the first NaN, else the first extremum.
Value argmax(Value x, int64_t axis);
Value argmin(Value x, int64_t axis);

}  // namespace tandem
