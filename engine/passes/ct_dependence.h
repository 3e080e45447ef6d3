// Which outputs of a program structurally depend on a set of its inputs: the vjp pass's
// symbolic zero cotangents (JAX's ad.Zero). A sub-program's backward (a checkpoint's, a scan
// body's, a cond branch's) is linear in its output cotangents, so an input cotangent that
// depends on none of the nonzero ones is a structural zero: the enclosing level leaves it
// out instead of instantiating zeros that a rule upstream could turn into 0 * inf = NaN
// (sqrt's 1/(2 sqrt(0)), a multiply by an infinite primal), which JAX never forms.
#pragma once
#include <vector>

#include "engine/ir/ir.h"

namespace tandem {

// Per output of p: whether it depends on an input flagged in `from` (one flag per input).
// Conservative through an equation: any operand that depends makes every output depend.
std::vector<bool> depends_on(const Program& p, const std::vector<bool>& from);

}  // namespace tandem
