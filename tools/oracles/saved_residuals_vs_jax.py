#!/usr/bin/env python3
"""What tandem's vjp saves against what JAX saves (jax.ad_checkpoint.saved_residuals, the
function behind print_saved_residuals), per remat item of a `tandem dump-programs DIR`: the
item's forward program is interpreted in JAX (tools/oracles/program_vs_jax.py: jax.checkpoint with
the matching policy, lax.scan, checkpoint_name, ...) and linearized with respect to the same
inputs; tandem's residuals are DIR/<case>/<label>/residuals.json (runners/cli/dump_programs_command.cc).

The saved sets are compared as multisets of types (dtype, shape, and `<host>` for a residual
offloaded to pinned host memory), arguments included. JAX's residuals "from a literal" (scalar
constants of its JVP rules) are left out; an input that is not differentiated is closed over,
so JAX lists it "from a constant" where tandem says "from the argument". JAX's JVP rules save
their own derivative values where tandem's VJP rules read the primal values (logistic: JAX
saves σ·(1−σ), tandem σ), so under a policy that saves elementwise results (everything_saveable,
save_anything_except_these_names) the sets differ by rule, not by policy: those items are
KNOWN (printed, not failed; one that starts to agree prints XPASS). docs/JAX_ORACLE.md,
"Saved residuals".

    tools/oracles/saved_residuals_vs_jax.py DUMPDIR [--filter REGEX]
Exits 0 when every compared item agrees, 1 when one does not, 4 on bad usage, 77 without JAX.
"""
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import program_vs_jax as pj  # noqa: E402  (exits 77 itself when JAX is missing)

from jax._src.ad_checkpoint import saved_residuals  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

ELEMENTWISE_SAVED = ("JAX's JVP rules save their own derivative values (logistic's s*(1-s), tanh's "
                     "1-y^2 terms), tandem's VJP rules the primal values they read: the sets differ by rule")
KNOWN = {  # the models whose saved elementwise values differ (sin_chain's and dots_in_scan's agree)
    r"^remat/(mlp|attention|scan_mlp|scan_in_checkpoint|lstm|rnn_wt)/.*/policy:(everything_saveable|"
    r"save_anything_except_these_names\()": ELEMENTWISE_SAVED,
    r"^remat/sort_ties/.*/policy:(everything_saveable|save_anything_except_these_names\()":
        "JAX's sort JVP sorts an iota beside the keys in the forward and saves that u32 permutation; "
        "tandem's VJP rule saves the keys and sorts them with an iota again in the backward",
}


def jax_types(prog, meta, arrays):
    """JAX's saved residuals of the item's forward program, as type strings."""
    wrt = [i for i, w in enumerate(meta["wrt"]) if w]
    res = saved_residuals(pj.of_wrt(prog, arrays, wrt, False), *[arrays[i] for i in wrt])
    return [a.str_short(short_dtypes=True) for a, src in res if not src.startswith("from a literal")]


def tandem_types(residuals):
    return [re.sub(r"^(\w+)\[", r"\1<host>[", r["type"]) if r["offloaded"] else r["type"] for r in residuals]


def difference(tandem, jax):
    t, j = collections.Counter(tandem), collections.Counter(jax)
    more, fewer = t - j, j - t
    words = [f"tandem saves {n} more {k}" for k, n in sorted(more.items())]
    words += [f"tandem saves {n} fewer {k}" for k, n in sorted(fewer.items())]
    return "; ".join(words)


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-") or not os.path.isdir(args[0]):
        print("usage: tools/oracles/saved_residuals_vs_jax.py DUMPDIR [--filter REGEX]\n"
              "  hint: `tandem dump-programs --suite remat DUMPDIR` writes DUMPDIR", file=sys.stderr)
        return 4
    root, filt = args[0], re.compile(args[args.index("--filter") + 1]) if "--filter" in args else None
    n = n_bad = n_known = 0
    for d in pj.items(root):
        if not os.path.exists(os.path.join(d, "residuals.json")):
            continue
        meta = json.load(open(os.path.join(d, "meta.json")))
        name = meta["case"]
        if filt and not filt.search(name):
            continue
        prog = json.load(open(os.path.join(d, "program.json")))
        arrays = [jnp.asarray(np.load(os.path.join(d, f"in_{i}.npy")), pj.dtype_of(t, False))
                  for i, t in enumerate(meta["inputs"])]
        tandem = tandem_types(json.load(open(os.path.join(d, "residuals.json"))))
        jax = jax_types(prog, meta, arrays)
        n += 1
        diff = difference(tandem, jax)
        known = next((why for pat, why in KNOWN.items() if re.search(pat, name)), None)
        if known:
            n_known += 1
            print(f"{'KNOWN' if diff else 'XPASS'} {name}: {diff or f'{len(tandem)} residuals, as JAX'} [{known}]")
            continue
        n_bad += bool(diff)
        print(f"{'FAIL' if diff else 'ok  '} {name}: {diff or f'{len(tandem)} residuals, as JAX'}")
        if diff:
            print(f"     tandem: {sorted(tandem)}\n     JAX:    {sorted(jax)}")
    print(f"\n{n} items compared, {n_bad} failed, {n_known} known disagreements")
    if n == 0:
        print("error: no item has residuals.json\n  hint: dump the remat suite", file=sys.stderr)
        return 4
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
