// Where the fuzzer's error model (fuzz_oracle.h) knows a value is exact in every run: the
// program's own inputs, which the engine and every reference run hold bit for bit, and a
// product by a power of two, which no IEEE format rounds while the result stays normal.
// On such operands an f8 dot's conversion is judged exactly: every run rounds the same
// value to the same f8 value, so a conversion that rounds a tie or an overflow the wrong
// way is an error, not noise inside a bound of one f8 unit (2^-3).
#pragma once
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "engine/ir/ir.h"
#include "reference/array.h"

namespace tandem::fuzz {

// Ids of p's variables that hold the same bits in every run: its inputs, and such a variable
// floored or times a power-of-two literal. For the top-level program only (a body's inputs
// are computed values).
std::unordered_set<int64_t> exact_values(const Program& p);

// Whether e is a dot_general under an f8 preset whose two operands are in `exact`.
bool f8_dot_of_exact_values(const Eqn& e, const std::unordered_set<int64_t>& exact);

// Whether element i of a mul's result `out` is an operand times a power of two (of either
// sign) and a normal number or zero of dtype t: then it is exact, nothing to perturb.
bool power_of_two_product(const Eqn& e, const std::vector<ref::Array>& args, size_t i, double out, DType t);

}  // namespace tandem::fuzz
