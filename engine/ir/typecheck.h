// Typecheck: every var defined once before use, every equation's outputs equal to what its
// shape rule says, sub-programs checked recursively. Throws a bad-input Error naming the eqn.
#pragma once
#include "engine/ir/ir.h"

namespace tandem {
void typecheck(const Program& program);
// One equation against its shape rule: the number and types of the outputs it derives from
// the inputs' types. Sub-programs are not entered (typecheck does that). Messages start with
// `where` ("eqn 3 add"). Readers of programs from outside (program_json_read.h) call it per
// equation, as they build it, to name the equation and its source.
void typecheck_eqn(const Eqn& eqn, const std::string& where);
}
