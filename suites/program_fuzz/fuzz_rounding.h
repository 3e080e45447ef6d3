// The error model of one equation in the fuzz oracle's own-dtype runs (fuzz_oracle.h): how a
// dot preset rounds its operands and accumulates, how many terms a sum has, how an elementwise
// result rounds; and that model as text, so two presets with the same model are seen as one.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "engine/ir/ir.h"

namespace tandem::fuzz {

struct Rounding {
  std::optional<DType> input_format;        // a dot preset's operand format (own runs round there)
  std::optional<DType> accumulator_format;  // a dot preset's narrow accumulator (result rounded there)
  double in = 0;      // relative error of each operand of a sum (a preset's input conversion)
  double acc = 0;     // relative error of each accumulation step
  int64_t terms = 0;  // values summed into each result (0: not a sum)
  double out = 0;     // relative error of an elementwise result's rounding
};

Rounding rounding_of(const Eqn& e);

// The relative roundoff of a dot's inputs under a precision string (a preset's input
// format; the operand dtype's own for DEFAULT / HIGHEST / F32 / F64).
double dot_input_roundoff(const std::string& precision, DType operand);

// rounding_of a dot_general as text: presets with the same text give the same own-dtype runs
// (DEFAULT, HIGHEST, F32_F32_F32, BF16_BF16_F32_X9 and F64_F64_F64 on f32 operands share one).
std::string dot_rounding_model(const Eqn& e);

}  // namespace tandem::fuzz
