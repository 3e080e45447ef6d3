// A Program as JSON, for oracles outside C++ (tools/oracles/program_vs_jax.py evaluates it with
// JAX's lax primitives) and the schema an exporter from JAX targets; program_json_read.h
// reads it back. The schema in full: docs/PROGRAM_JSON.md. Everything an equation carries is
// written: its primitive's name, every param it holds (ints, floats, bools, strings, int
// lists, dtypes and sub-programs, recursively), its inputs (variables by id, scalar literals
// with their dtype) and its typed outputs. Params an equation leaves unset take the
// primitive's default, which is JAX's (scan's reverse=false, unroll=1; dot_general's
// precision DEFAULT; ...).
//
//   {"schema_version": 1,
//    "invars": [{"id": 3, "dtype": "f32", "shape": [4, 8]}, ...],
//    "eqns": [{"primitive": "add", "in": [{"var": 3}, {"literal": 2.0, "dtype": "f32"}],
//              "out": [{"id": 5, ...}], "params": {"axes": [0], "new_dtype": {"dtype": "f32"},
//                                                   "scale": 0.5, "body": {"program": {...}}}}],
//    "outvars": [{"var": 5}]}
//
// (The params shown are several primitives', one of each kind.) Only the top level carries "schema_version"; a sub-program is {"invars", "eqns", "outvars"}.
// An int param is a JSON integer (2) and a float param a number with a decimal point or an
// exponent (2.0, 1e+20), so each reads back as the alternative it was. Non-finite literals
// are the strings "nan", "inf", "-inf" (JSON has no numbers for them); a non-finite float
// param is tagged, {"float": "nan"}, since a bare "nan" would read back as a string param.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>

#include "engine/ir/ir.h"

namespace tandem {

// Bumped when a reader of the old version would misread the new one (docs/PROGRAM_JSON.md).
inline constexpr int kProgramJsonSchemaVersion = 1;

nlohmann::json program_to_json(const Program& program);

// A float as the format writes it (a number, or "nan", "inf", "-inf"), and back (nullopt: not
// one of those); other JSON writers of tensor values use the same spelling.
nlohmann::json json_number(double v);
std::optional<double> number_from_json(const nlohmann::json& j);

}  // namespace tandem
