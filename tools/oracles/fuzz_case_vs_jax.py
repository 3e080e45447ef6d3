#!/usr/bin/env python3
"""A `tandem fuzz` case against JAX itself: the arbiter when the engine and the reference
disagree (or a sample of agreeing cases). Reads case JSON files (suites/program_fuzz/
fuzz_case_json.h; `tandem fuzz --out DIR` writes one per disagreement, with the engine's and
the f64 reference's results), runs the case's chain with JAX's own transformations over the
program interpreted by tools/oracles/program_vs_jax.py (jax.vjp for vjp kinds, jax.vmap for vmap kinds,
the untransformed program for hoist, whose rewrite must not change the result), and prints,
per result, which side JAX agrees with under program_vs_jax's bound.

    tools/oracles/fuzz_case_vs_jax.py CASE.json... [--quiet]
Exit 0: every result of every case JAX can judge has the engine agreeing with JAX (cases with
collectives or presets XLA:CPU does not emulate are out of its scope, counted); 1: some do not,
JAX refuses a program tandem accepted, or no case was judged; 77: no JAX.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import program_vs_jax as pvj  # noqa: E402  (exits 77 itself when JAX is missing)
from jax_common import NARROW, name_of  # noqa: E402  (the oracles' dtypes)
import numpy as np  # noqa: E402

DIFFERENTIATES = {"vjp", "vmap_of_vjp", "hoist_vjp"}
VMAPS = {"vmap", "vmap_of_vjp"}


def array(t):
    data = [float(x) if isinstance(x, str) else x for x in t["data"]]
    return np.array(data, dtype=np.float64).reshape(t["shape"])


def same_class_specials(t, native, wide):
    """A NaN or an infinity that JAX at the program's dtypes makes too (a bf16 overflow the f64
    run does not have) agrees: those elements are taken out of the comparison with the f64 run."""
    t, n, w = (np.asarray(x, np.float64).copy() for x in (t, native, wide))
    if t.shape != n.shape:
        return t, n, w
    special = ~np.isfinite(n) & ((np.isnan(t) & np.isnan(n)) | (t == n)) & ~((np.isnan(w) & np.isnan(n)) | (w == n))
    for x in (t, n, w):
        x[special] = 0.0
    return t, n, w


def narrowed(case, meta, primal, cts, native):
    """Per result, JAX's run with f64 narrowed to f32 where the result is f64 (None elsewhere):
    the estimate of JAX's own f64 error (jax_common.narrowed_f64_error)."""
    if not any(name_of(n.dtype, "f32") == "f64" for n in native):
        return [None] * len(native)
    runs = pvj.run_jax(case["program"], meta, primal, cts, wide=NARROW)
    return [r if name_of(n.dtype, "f32") == "f64" else None for r, n in zip(runs, native)]


def meta_of(case):
    prog, chain = case["program"], case["chain"]
    inputs = [v["dtype"] for v in prog["invars"]]
    kinds = {v["id"]: v for v in prog["invars"]}
    out_types = []
    for a in prog["outvars"]:
        out_types.append(kinds[a["var"]]["dtype"] if "var" in a and a["var"] in kinds else None)
    meta = {"inputs": inputs, "differentiate": chain["kind"] in DIFFERENTIATES,
            "wrt": [pvj.is_float(d) for d in inputs], "output_cts": []}
    if meta["differentiate"]:
        meta["output_cts"] = [t["dtype"] for t in case["cotangents"]] or \
            [case["args"][len(inputs) + k]["dtype"] for k in range(len(prog["outvars"]))]
    if chain["kind"] in VMAPS:
        meta["vmap"] = {"in_axes": chain["in_axes"], "out_axes": chain["out_axes"], "size": chain["axis_size"]}
    return meta


def judge(path, quiet):
    case = json.load(open(path))
    meta = meta_of(case)
    n_in = len(meta["inputs"])
    args = [array(t) for t in case["args"]]
    primal, cts = args[:n_in], args[n_in:] + [array(t) for t in case["cotangents"]]
    # What JAX cannot judge on the CPU, as tools/oracles/program_vs_jax.py scopes it: collectives
    # (no named axis here) and presets XLA:CPU does not emulate.
    scope = [f"{p}: {pvj.OUT_OF_SCOPE[p]}" for p in sorted(pvj.prims_in(case["program"], set())) if p in pvj.OUT_OF_SCOPE]
    scope += [pvj.PRESET_SCOPE.format(p) for p in sorted(pvj.dot_presets(case["program"], set()) - pvj.CPU_FAITHFUL_PRESETS)]
    # XLA:CPU flushes subnormal operands to zero (1/x of a subnormal bf16 is inf, times x is
    # then NaN in JAX and inf in tandem, which keeps IEEE subnormals): such cases are not judged.
    smallest_normal = {"f64": 2.2250738585072014e-308, "f32": 1.1754943508222875e-38,
                       "bf16": 1.1754943508222875e-38, "f16": 6.103515625e-05}
    for t in case["args"] + case["cotangents"]:
        a = np.abs(array(t))
        if t["dtype"] in smallest_normal and ((a > 0) & (a < smallest_normal[t["dtype"]])).any():
            scope.append("a subnormal argument: XLA:CPU flushes subnormals to zero, tandem keeps them (docs/FUZZING.md)")
            break
    if scope:
        if not quiet:
            print(f"{os.path.basename(path)}: out of scope for JAX: {scope[0]}")
        return None
    try:
        native = pvj.run_jax(case["program"], meta, primal, cts, wide=False)
        wide = pvj.run_jax(case["program"], meta, primal, cts, wide=True)
        narrow = narrowed(case, meta, primal, cts, native)
    except (pvj.OutOfScope, pvj.UnknownPrimitive) as e:
        print(f"{path}: out of scope for JAX: {e}")
        return None
    except (ValueError, TypeError, KeyError, IndexError) as e:  # JAX refuses the program tandem accepted
        print(f"{path}: JAX refuses the program: {str(e).splitlines()[0]}")
        return False
    except Exception as e:  # XLA:CPU cannot compile what JAX accepted (e.g. an algorithm it lacks)
        if not quiet:
            print(f"{path}: out of scope for XLA:CPU: {str(e).splitlines()[0]}")
        return None
    ok = True
    for k, (n, w) in enumerate(zip(native, wide)):
        dtype = name_of(n.dtype, "f32")
        line = [f"{os.path.basename(path)} result {k}"]
        for side in ("engine", "reference"):
            if not isinstance(case.get(side), list) or k >= len(case[side]):
                line.append(f"{side}: none")
                continue
            agree, text, _ = pvj.compare(*same_class_specials(array(case[side][k]), n, w), dtype, narrow[k])
            line.append(f"{side} {'agrees' if agree else 'DIFFERS'} ({text})")
            if side == "engine":
                ok &= agree
        if not quiet or not ok:
            print(" | ".join(line))
    return ok


def main():
    files = [a for a in sys.argv[1:] if not a.startswith("-")]
    if not files:
        print("usage: tools/oracles/fuzz_case_vs_jax.py CASE.json... [--quiet]\n"
              "  hint: `tandem fuzz --out DIR` writes DIR/case-SEED.json for each disagreement", file=sys.stderr)
        return 4
    results = [judge(f, "--quiet" in sys.argv) for f in files]
    judged = [r for r in results if r is not None]
    print(f"total: {len(results)} cases, {len(judged)} judged by JAX (the rest out of its scope), "
          f"engine agrees with JAX on {sum(judged)}")
    if not judged:
        print("error: no case was in JAX's scope: nothing was judged", file=sys.stderr)
        return 1
    return 0 if all(judged) else 1


if __name__ == "__main__":
    sys.exit(main())
