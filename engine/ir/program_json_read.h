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

Program program_from_json(const nlohmann::json& j);
// Reads and parses a file, then program_from_json; messages start with the path.
Program read_program_json(const std::string& path);

}  // namespace tandem
