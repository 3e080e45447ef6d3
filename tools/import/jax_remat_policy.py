"""A jax.checkpoint policy as tandem's policy string (engine/ir/remat_policy.h), for
tools/import/jaxpr_to_program.py's checkpoint row: the inverse of tools/oracles/program_vs_jax.py's policy_of.
JAX's policies are recognised by their class or function name (the factories' inner functions
by the closure cells that hold their arguments); a user's own predicate cannot be written.
"""
from jax._src import ad_checkpoint

from jaxpr_scope import Unserialisable


def closure(fn):
    return {k: c.cell_contents for k, c in zip(fn.__code__.co_freevars, fn.__closure__ or ())}


def joined_names(names):
    names = sorted(names)
    bad = [n for n in names if any(ch in n for ch in ",;|()")]
    if bad:
        raise Unserialisable(f"checkpoint name(s) {bad} contain one of , ; | ( ) which tandem's policy "
                             "strings use as separators", "rename them")
    return ",".join(names)


def both_policies(fn):
    c = closure(fn)
    return f"save_from_both_policies({policy_string(c['policy_1'])};{policy_string(c['policy_2'])})"


def offload_names(fn):
    c = closure(fn)
    if (c["offload_src"], c["offload_dst"]) != ("device", "pinned_host"):
        raise Unserialisable(f"save_and_offload_only_these_names from {c['offload_src']} to {c['offload_dst']}: "
                             "tandem's policy string offloads device -> pinned_host only",
                             "use offload_src='device', offload_dst='pinned_host'")
    return (f"save_and_offload_only_these_names({joined_names(c['names_which_can_be_saved'])}|"
            f"{joined_names(c['names_which_can_be_offloaded'])})")


def except_names(fn):
    # JAX (ad_checkpoint.py) keeps no names here: its policy saves everything. Written as what
    # JAX does, so tandem's remat report is compared with what JAX really saves.
    return "everything_saveable"


# A policy's __qualname__ (functions, the factories' inner functions) or its class's (DotsSaveable, SaveOnlyTheseNames,
# SaveAnyNamesButThese) -> tandem's policy string (engine/ir/remat_policy.h). None is jax.checkpoint's default:
# remat_partial_eval reads it as nothing_saveable.
POLICIES = {
    "everything_saveable": lambda p: "everything_saveable",
    "nothing_saveable": lambda p: "nothing_saveable",
    "DotsSaveable": lambda p: ("dots_with_no_batch_dims_saveable" if p.only_if_no_batch_dims
                               else "dots_saveable"),
    "SaveOnlyTheseNames": lambda p: f"save_only_these_names({joined_names(p.saveable_names)})",
    "SaveAnyNamesButThese": lambda p: f"save_any_names_but_these({joined_names(p.names)})",
    "save_anything_except_these_names.<locals>.<lambda>": except_names,
    "save_from_both_policies.<locals>.policy": both_policies,
    "save_and_offload_only_these_names.<locals>.policy": offload_names,
    "offload_dot_with_no_batch_dims.<locals>.policy":
        lambda p: "offload_dot_with_no_batch_dims({offload_src},{offload_dst})".format(**closure(p)),
}


def policy_string(policy):
    if policy is None:
        return "nothing_saveable"
    key = getattr(policy, "__qualname__", None) or type(policy).__qualname__
    module = getattr(policy, "__module__", None) or type(policy).__module__
    if key not in POLICIES or module != ad_checkpoint.__name__:
        raise Unserialisable(f"remat policy {key} (from {module}) is not one of jax.checkpoint_policies",
                             "tandem takes the jax.checkpoint_policies ones (engine/ir/remat_policy.h); "
                             "write yours as one of them, e.g. save_only_these_names with checkpoint_name")
    return POLICIES[key](policy)
