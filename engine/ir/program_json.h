// A Program as JSON, for oracles outside C++ (tools/program_vs_jax.py evaluates it with
// JAX's lax primitives). Everything an equation carries is written: its primitive's name,
// every param it holds (ints, floats, bools, strings, int lists, dtypes and sub-programs,
// recursively), its inputs (variables by id, scalar literals with their dtype) and its
// typed outputs. Params an equation leaves unset take the primitive's default, which is
// JAX's (scan's reverse=false, unroll=1; dot_general's precision DEFAULT; ...).
//
//   {"invars": [{"id": 3, "dtype": "f32", "shape": [4, 8]}, ...],
//    "eqns": [{"primitive": "add", "in": [{"var": 3}, {"literal": 2.0, "dtype": "f32"}],
//              "out": [{"id": 5, ...}], "params": {"axes": [0], "new_dtype": {"dtype": "f32"},
//                                                   "body": {"program": {...}}}}],
//    "outvars": [{"var": 5}]}
//
// Non-finite literals and float params are written as the strings "nan", "inf", "-inf"
// (JSON has no numbers for them).
#pragma once
#include <nlohmann/json.hpp>

#include "engine/ir/ir.h"

namespace tandem {

nlohmann::json program_to_json(const Program& program);

}  // namespace tandem
