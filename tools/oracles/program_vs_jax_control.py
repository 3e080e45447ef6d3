"""The JAX calls of tandem's control flow for tools/oracles/program_vs_jax.py: scan, while, cond
and checkpoint, each sub-program run by the oracle's interpreter (passed in as `interpret`),
and a tandem remat policy string as its jax.checkpoint_policies policy."""
import re

import jax
import jax.numpy as jnp
from jax import lax


def policy_of(spec):
    """A tandem policy string (engine/ir/remat_policy.h) as the jax.checkpoint_policies one."""
    cp = jax.checkpoint_policies
    m = re.fullmatch(r"(\w+)(?:\((.*)\))?", spec)
    name, arg = m.group(1), m.group(2)
    names = lambda s: [n for n in s.split(",") if n]
    if arg is None:
        return getattr(cp, name)
    if name == "save_from_both_policies":
        a, b = arg.split(";", 1)
        return cp.save_from_both_policies(policy_of(a), policy_of(b))
    if name == "save_and_offload_only_these_names":
        saved, offloaded = arg.split("|")
        return cp.save_and_offload_only_these_names(
            names_which_can_be_saved=names(saved), names_which_can_be_offloaded=names(offloaded),
            offload_src="device", offload_dst="pinned_host")
    if name == "offload_dot_with_no_batch_dims":
        src, dst = arg.split(",")
        return cp.offload_dot_with_no_batch_dims(src, dst)
    return getattr(cp, name)(*names(arg))


def eval_scan(args, p, wide, interpret):
    body, nc, nk = p["body"]["program"], p["num_consts"], p["num_carry"]
    consts, init, xs = args[:nc], args[nc:nc + nk], args[nc + nk:]

    def step(carry, x):
        out = interpret(body, list(consts) + list(carry) + list(x), wide)
        return tuple(out[:nk]), tuple(out[nk:])

    carry, ys = lax.scan(step, tuple(init), tuple(xs), length=p["length"],
                         reverse=p.get("reverse", False), unroll=p.get("unroll", 1))
    return list(carry) + list(ys)


def eval_while(args, p, wide, interpret):
    cond, body = p["cond"]["program"], p["body"]["program"]
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    cc, bc, init = list(args[:nc]), list(args[nc:nc + nb]), tuple(args[nc + nb:])
    carry = lax.while_loop(lambda c: interpret(cond, cc + list(c), wide)[0],
                           lambda c: tuple(interpret(body, bc + list(c), wide)), init)
    return list(carry)


def eval_cond(args, p, wide, interpret):
    """tandem's cond as lax.switch (which clamps; tandem runs the last branch for any index
    outside [0, n), so the index is mapped to that first)."""
    branches = [p[f"branch_{i}"]["program"] for i in range(len(p)) if f"branch_{i}" in p]
    n, index = len(branches), args[0]
    index = jnp.where((index >= 0) & (index < n), index, n - 1)
    fns = [(lambda b: lambda *a: tuple(interpret(b, list(a), wide)))(b) for b in branches]
    return list(lax.switch(index, fns, *args[1:]))


def eval_checkpoint(args, p, wide, interpret):
    body = p["body"]["program"]
    f = jax.checkpoint(lambda *a: tuple(interpret(body, list(a), wide)),
                       policy=policy_of(p.get("policy", "nothing_saveable")),
                       prevent_cse=p.get("prevent_cse", True))
    return list(f(*args))
