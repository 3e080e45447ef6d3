// What a user can write instead of a JAX primitive tandem lacks: the hint of the program
// reader's "unknown primitive" refusal (program_json_read.cc). One row per JAX primitive for
// which a rewrite into primitives tandem has exists (tools/import writes JAX's own name for any
// other, so the refusal names it); tools/import/primitive_rewrites_test.py checks that each
// rewrite lowers to tandem's primitives only and equals what it replaces.
#pragma once
#include <optional>
#include <string>

namespace tandem {

// The rewrite for JAX primitive `name`, or nullopt when none is known.
std::optional<std::string> primitive_rewrite(const std::string& name);

}  // namespace tandem
