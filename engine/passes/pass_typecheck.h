// Typecheck after every pass (DESIGN.md's promise): each pass entry point (vjp, vjp_joint,
// hoist_scan_reductions, ...) hands its result to typecheck_after_pass, so a pass that
// emits an ill-typed program fails where it did so, naming itself, instead of in a later
// executor run. On in debug builds (NDEBUG not defined); release builds skip the walk unless
// set_pass_typecheck(true) or TANDEM_TYPECHECK_PASSES=1 turns it on, as the test that proves
// each pass is wired does.
#pragma once
#include <cstdint>
#include <string>

#include "engine/ir/ir.h"

namespace tandem {

// Typechecks `result` of `pass` when enabled; an ill-typed result is an internal error
// "pass <pass> produced an ill-typed program: ...".
void typecheck_after_pass(const Program& result, const std::string& pass);

bool pass_typecheck_enabled();  // default: debug builds, or TANDEM_TYPECHECK_PASSES=1
void set_pass_typecheck(bool on);
// How many results of `pass` have been typechecked in this process (for tests).
int64_t pass_typecheck_count(const std::string& pass);

}  // namespace tandem
