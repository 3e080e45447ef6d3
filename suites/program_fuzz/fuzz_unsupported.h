// The combinations the engine is known not to take (open gaps, listed in docs/FUZZING.md): a
// case the engine refuses is a failure unless a row here says, from the case itself — never
// from the engine's message — that it is one of them. Each row names the gap.
#pragma once
#include <optional>
#include <string>

#include "suites/program_fuzz/fuzz_case.h"

namespace tandem::fuzz {

// The first row that matches c, as "unsupported: what", or nullopt.
std::optional<std::string> unsupported_reason(const FuzzCase& c);

}  // namespace tandem::fuzz
