// checkpoint (jax.checkpoint / remat) and checkpoint_name as primitives, with builder helpers.
// checkpoint's params: body (sub-program), policy (a policy string, see
// engine/ir/remat_policy.h), prevent_cse (recorded; the interpreter never CSEs).
// Evaluating either is the identity on its body; only the vjp pass reads the policy.
#pragma once
#include <string>
#include <vector>

#include "engine/ir/builder.h"

namespace tandem {

std::vector<Value> checkpoint(const Program& body, const std::vector<Value>& in,
                              const std::string& policy = "nothing_saveable", bool prevent_cse = true);
Value checkpoint_name(Value x, const std::string& name);

void register_checkpoint_primitives();

}  // namespace tandem
