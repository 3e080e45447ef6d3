// Symbolic zero cotangents for the vjp pass (JAX's ad.Zero). A sub-program's backward (a
// checkpoint's, a scan body's, a cond branch's) is linear in its output cotangents: an input
// cotangent that depends on none of the nonzero ones is a structural zero, and so is every
// value computed from zero cotangents and primal values only (g · f'(x) with g = 0). The pass
// leaves those out instead of instantiating zeros that a rule would turn into 0 · inf = NaN
// (sqrt's 1/(2 sqrt(0)), a product with an infinite primal), which JAX never forms.
#pragma once
#include <vector>

#include "engine/ir/builder.h"

namespace tandem {

// Per output of p: whether it depends on an input flagged in `from` (one flag per input).
// Conservative through an equation: any operand that depends makes every output depend.
std::vector<bool> depends_on(const Program& p, const std::vector<bool>& from);

// p bound into b on `in`, as inline_program does, where p is linear in the inputs `linear`
// flags and those `zero` flags are structural zeros: an equation reading zeros and no nonzero
// linear value is not emitted (its outputs are zeros, as a JAX transpose rule given only
// Zero cotangents returns Zero), and an output is `nonzero` when it depends on a linear input
// that is not zero.
struct LinearInlined {
  std::vector<Value> out;
  std::vector<bool> nonzero;
};
LinearInlined inline_linear(Builder& b, const Program& p, const std::vector<Value>& in,
                            const std::vector<bool>& linear, const std::vector<bool>& zero);

}  // namespace tandem
