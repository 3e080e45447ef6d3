// JSON → Program: the reverse of program_to_json (program_json.h), for programs written by
// tandem itself or by an exporter outside it (the schema: docs/PROGRAM_JSON.md). Every
// Program program_to_json writes reads back to one that writes the same JSON. Variables keep
// their ids (var_with_id); each program, sub-programs included, is its own scope of ids.
// Each equation is typechecked as it is read (typecheck_eqn). Anything malformed is a
// bad-input Error naming the equation (index, primitive, its "source" when the file gives
// one, and the path through sub-programs) and what was expected there.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "engine/ir/ir.h"

namespace tandem {

// Limits (bad input beyond them, never a stack overflow): a JSON value nests at most
// kMaxJsonDepth arrays and objects deep; sub-programs nest at most kMaxSubProgramDepth deep.
// A variable holds at most kMaxElements elements: 2^40 is 4 TiB of f32, past any one
// machine's memory, and far below where an element count or a byte size overflows int64
// (a product that wraps would otherwise read as a small, wrong shape).
constexpr size_t kMaxJsonDepth = 512;
constexpr size_t kMaxSubProgramDepth = 64;
constexpr int64_t kMaxElements = int64_t(1) << 40;

Program program_from_json(const nlohmann::json& j);
// Bad input naming `what` when j nests deeper than kMaxJsonDepth (walked without recursion;
// a reader of any JSON file checks this before anything recursive touches the value).
void check_json_depth(const nlohmann::json& j, const std::string& what);
// Reads and parses a file, then program_from_json; messages start with the path.
Program read_program_json(const std::string& path);

}  // namespace tandem
