// Rematerialization policies (jax.checkpoint_policies): small predicates over an equation
// that say whether its outputs may be saved for the backward pass, saved into the offload
// pool, or must be recomputed. A policy is named by a string so a checkpoint eqn can carry
// it as a param: "dots_saveable", "save_only_these_names(y,z)",
// "save_and_offload_only_these_names(a,b|c)" (saved | offloaded),
// "save_from_both_policies(dots_saveable;save_only_these_names(y))",
// "offload_dot_with_no_batch_dims(device,pinned_host)", or the name of a user predicate
// registered with register_policy (JAX's `lambda prim, *_, **params: ...`).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "engine/ir/ir.h"

namespace tandem {

enum class Remat { recompute, save, offload };

struct Policy {
  std::string spec;                    // the string it was parsed from (canonical)
  std::function<Remat(const Eqn&)> fn;
  std::vector<std::string> names;      // names a name policy refers to (empty otherwise)
  bool may_offload = false;            // can answer Remat::offload
  Remat operator()(const Eqn& e) const { return fn(e); }
};

Policy everything_saveable();
Policy nothing_saveable();
Policy dots_saveable();
Policy dots_with_no_batch_dims_saveable();
Policy save_anything_except_these_names(const std::vector<std::string>& names);
Policy save_any_names_but_these(const std::vector<std::string>& names);
Policy save_only_these_names(const std::vector<std::string>& names);
Policy save_and_offload_only_these_names(const std::vector<std::string>& saved,
                                         const std::vector<std::string>& offloaded);
// Saves what either saves; refuses offloading policies, as JAX does (its combinator only
// takes boolean policies): at construction when known, at evaluation for user predicates.
Policy save_from_both_policies(const Policy& a, const Policy& b);
// Offloads (src -> dst memory kind) the dots without batch dims, recomputes the rest.
Policy offload_dot_with_no_batch_dims(const std::string& src, const std::string& dst);
// A user predicate over the primitive and its params.
using PolicyFn = std::function<Remat(const Primitive& prim, const Params& params)>;
Policy user_policy(const std::string& name, PolicyFn fn);
// Registers a user predicate under a name that checkpoint's policy param can carry.
void register_policy(const std::string& name, PolicyFn fn);

// Parses a policy string; an unknown name is a bad-input error listing the known ones.
Policy policy_from_string(const std::string& spec);

// The name a checkpoint_name eqn gives its output, or "" for any other eqn.
std::string eqn_name(const Eqn& e);
// Every name given by checkpoint_name in a program, nested sub-programs included.
std::vector<std::string> names_in(const Program& p);

}  // namespace tandem
