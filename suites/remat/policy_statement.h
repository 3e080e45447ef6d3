// An independent statement of the remat policies (jax.checkpoint_policies), written from their definitions in JAX's
// ad_checkpoint.py (shared/seeds/jax_ad_checkpoint.py.txt) and JAX's offload policies' documentation, NOT by calling
// engine/ir/remat_policy: the remat suite checks the set a vjp saved against it, so a policy predicate that drifts
// (saves a value its definition does not permit) is caught instead of being asked about itself.
#pragma once
#include <string>
#include <vector>

#include "engine/ir/ir.h"
#include "engine/passes/vjp.h"

namespace tandem::remat {

enum class May { recompute, save, offload };  // what a policy's definition permits for a value

// What `policy` (a policy string as the checkpoint param carries it) permits for the outputs
// of `e`. An unknown policy head is a bad-input error.
May permitted(const std::string& policy, const Eqn& e);

// A saved residual the policy's statement does not permit, described for the message.
struct Unpermitted {
  std::string residual;  // "f32[4,8] output of logistic"
  std::string producer;  // primitive (or checkpoint_name 'n') the value comes from
  std::string policy;    // the policy of the checkpoint that saved it ("" for none)
  int64_t bytes = 0;
  bool offloaded = false;  // moved to pinned host memory rather than kept on the device
};

// The residuals of `v` that no equation of `model` (each under the policy of the innermost checkpoint around it,
// everything_saveable outside any checkpoint: JAX without remat saves all) is permitted to save in the way they were
// saved (saved vs offloaded). The program's and each checkpoint's own inputs are always saved, as in JAX; so is the
// carry entering each step of a scan outside every checkpoint (stacked), but never the carries of a scan inside one:
// JAX's backward rebuilds those by running the forward scan again.
std::vector<Unpermitted> unpermitted_residuals(const Program& model, const VjpProgram& v);

// Primitives the backward of `v` recomputes although the statement permits saving every equation of theirs inside the
// model's checkpoint bodies (a policy saving less than it should: dots_saveable recomputing a dot). The other half of
// "the saved set is the policy's", as far as it can be told per primitive.
std::vector<std::string> recomputed_but_saveable(const Program& model, const VjpProgram& v);

// Equations inside checkpoint bodies whose outputs the statement says to recompute: when
// there are some, the backward must recompute something.
int64_t statement_recomputes(const Program& model);

}  // namespace tandem::remat
