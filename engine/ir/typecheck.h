// Typecheck: every var defined once before use, every equation's outputs equal to what its
// shape rule says, sub-programs checked recursively. Throws a bad-input Error naming the eqn.
#pragma once
#include "engine/ir/ir.h"

namespace tandem {
void typecheck(const Program& program);
}
