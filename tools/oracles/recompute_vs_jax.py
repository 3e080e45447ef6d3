#!/usr/bin/env python3
"""What tandem's vjp recomputes against what JAX recomputes, per remat item of a
`tandem dump-programs DIR` (runners/cli/dump_programs_command.cc writes tandem's counts in
DIR/<case>/<label>/recompute.json). JAX's counts: the item's forward program is interpreted in
JAX (tools/oracles/program_vs_jax.py: jax.checkpoint with the matching policy, lax.scan, ...),
jax.vjp'd, and the primitive applications of its backward (jax.make_jaxpr of the pullback; a
scan body counts once per step, other sub-jaxprs once) are counted; what the backward runs
beyond the same model's backward under everything_saveable (whose cotangent work is the same)
is what the policy makes it recompute, the measure tandem's counts follow (engine/passes/vjp.h,
RecomputeStats; executed_recompute in engine/passes/saved_residuals.h).

Only primitives whose applications are primal work in both systems are compared (COMPARED):
elementwise ops that are part of JAX's JVP rules (mul, sub, ...) differ by rule, as in
saved_residuals_vs_jax.py, and scan itself is counted by tandem as one application of the
replay scan.

    tools/oracles/recompute_vs_jax.py DUMPDIR [--filter REGEX] [--print]
--print: prints JAX's counts only (no tandem counts needed). Exits 0 when every compared item
agrees, 1 when one does not, 4 on bad usage, 77 without JAX.
"""
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import program_vs_jax as pj  # noqa: E402  (exits 77 itself when JAX is missing)

import jax  # noqa: E402
import jax.extend.core  # noqa: E402,F401  (ClosedJaxpr, Jaxpr)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

COMPARED = ("dot_general", "logistic", "tanh", "sin", "exp", "log")
BASELINE = "everything_saveable"


def applications(jaxpr, times=1, counts=None):
    """Primitive applications running `jaxpr` performs, per primitive (scan bodies × length)."""
    counts = collections.Counter() if counts is None else counts
    for e in jaxpr.eqns:
        counts[e.primitive.name] += times
        inner = times * (e.params["length"] if e.primitive.name == "scan" else 1)
        for v in e.params.values():
            for sub in (v if isinstance(v, (tuple, list)) else (v,)):
                if isinstance(sub, jax.extend.core.ClosedJaxpr):
                    applications(sub.jaxpr, inner, counts)
                elif isinstance(sub, jax.extend.core.Jaxpr):
                    applications(sub, inner, counts)
    return counts


def backward_counts(d):
    """The applications of JAX's backward (the pullback of jax.vjp) of item directory d."""
    meta = json.load(open(os.path.join(d, "meta.json")))
    prog = json.load(open(os.path.join(d, "program.json")))
    arrays = [jnp.asarray(np.load(os.path.join(d, f"in_{i}.npy")), pj.dtype_of(t, False))
              for i, t in enumerate(meta["inputs"])]
    cts = [jnp.asarray(np.load(os.path.join(d, f"ct_{i}.npy")), pj.dtype_of(t, False))
           for i, t in enumerate(meta["output_cts"])]
    wrt = [i for i, w in enumerate(meta["wrt"]) if w]
    _, pullback = jax.vjp(pj.of_wrt(prog, arrays, wrt, False), *[arrays[i] for i in wrt])
    return applications(jax.make_jaxpr(pullback)(tuple(cts)).jaxpr)


def jax_recompute(d, base_dir):
    """JAX's recompute counts of item d: its backward beyond the baseline's, COMPARED only."""
    got, base = backward_counts(d), backward_counts(base_dir)
    return {p: got[p] - base[p] for p in COMPARED if got[p] - base[p]}


def baseline_of(root, d):
    """The item directory of the same model under everything_saveable, or None."""
    case = json.load(open(os.path.join(d, "meta.json")))["case"]
    want = re.sub(r"/policy:.*$", f"/policy:{BASELINE}", case)
    for other in pj.items(root):
        if json.load(open(os.path.join(other, "meta.json")))["case"] == want:
            return other
    return None


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-") or not os.path.isdir(args[0]):
        print("usage: tools/oracles/recompute_vs_jax.py DUMPDIR [--filter REGEX] [--print]\n"
              "  hint: `tandem dump-programs --filter '^remat/' DUMPDIR` writes DUMPDIR", file=sys.stderr)
        return 4
    root, filt = args[0], re.compile(args[args.index("--filter") + 1]) if "--filter" in args else None
    only_print = "--print" in args
    n = n_bad = 0
    for d in pj.items(root):
        case = json.load(open(os.path.join(d, "meta.json")))["case"]
        has = os.path.exists(os.path.join(d, "recompute.json"))
        if (filt and not filt.search(case)) or not (has or only_print) or not case.startswith("remat/"):
            continue
        base = baseline_of(root, d)
        if base is None:
            print(f"skip {case}: no {BASELINE} item of the same model in {root}")
            continue
        jax_counts = jax_recompute(d, base)
        n += 1
        if only_print:
            print(f"{case}: JAX recomputes {dict(sorted(jax_counts.items()))}")
            continue
        by_prim = json.load(open(os.path.join(d, "recompute.json")))["by_prim"]
        tandem = {p: by_prim[p] for p in COMPARED if by_prim.get(p)}
        ok = tandem == jax_counts
        n_bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {case}: tandem {dict(sorted(tandem.items()))}"
              f"{'' if ok else f', JAX {dict(sorted(jax_counts.items()))}'}")
    print(f"\n{n} items compared, {n_bad} failed")
    if n == 0:
        print("error: no remat item with recompute.json\n  hint: dump the remat suite", file=sys.stderr)
        return 4
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
