#!/usr/bin/env python3
"""A `tandem fuzz` case against JAX itself: the arbiter when the engine and the reference
disagree (or a sample of agreeing cases). Reads case JSON files (suites/program_fuzz/
fuzz_case_json.h; `tandem fuzz --out DIR` writes one per disagreement, with the engine's and
the f64 reference's results), runs the case's chain with JAX's own transformations over the
program interpreted by tools/program_vs_jax.py (jax.vjp for vjp kinds, jax.vmap for vmap kinds,
the untransformed program for hoist, whose rewrite must not change the result), and prints,
per result, which side JAX agrees with under program_vs_jax's bound.

    tools/fuzz_case_vs_jax.py CASE.json... [--quiet]
Exit 0: every result of every case has the engine agreeing with JAX; 1: some do not; 77: no JAX.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import program_vs_jax as pvj  # noqa: E402  (exits 77 itself when JAX is missing)
import numpy as np  # noqa: E402

DIFFERENTIATES = {"vjp", "vmap_of_vjp", "hoist_vjp"}
VMAPS = {"vmap", "vmap_of_vjp"}


def array(t):
    data = [float(x) if isinstance(x, str) else x for x in t["data"]]
    return np.array(data, dtype=np.float64).reshape(t["shape"])


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
    try:
        native = pvj.run_jax(case["program"], meta, primal, cts, wide=False)
        wide = pvj.run_jax(case["program"], meta, primal, cts, wide=True)
    except (pvj.OutOfScope, pvj.UnknownPrimitive) as e:
        print(f"{path}: out of scope for JAX: {e}")
        return True
    except (ValueError, TypeError) as e:  # JAX refuses the program tandem accepted
        print(f"{path}: JAX refuses the program: {str(e).splitlines()[0]}")
        return False
    ok = True
    for k, (n, w) in enumerate(zip(native, wide)):
        dtype = str(n.dtype).replace("float", "f").replace("bfloat16", "bf16").replace("int32", "i32")
        dtype = {"f64": "f64", "f32": "f32", "f16": "f16", "bf16": "bf16", "i32": "i32", "bool": "bool"}.get(dtype, "f32")
        line = [f"{os.path.basename(path)} result {k}"]
        for side in ("engine", "reference"):
            if not isinstance(case.get(side), list) or k >= len(case[side]):
                line.append(f"{side}: none")
                continue
            agree, text, _ = pvj.compare(array(case[side][k]), n, w, dtype)
            line.append(f"{side} {'agrees' if agree else 'DIFFERS'} ({text})")
            if side == "engine":
                ok &= agree
        if not quiet or not ok:
            print(" | ".join(line))
    return ok


def main():
    files = [a for a in sys.argv[1:] if not a.startswith("-")]
    if not files:
        print("usage: tools/fuzz_case_vs_jax.py CASE.json... [--quiet]\n"
              "  hint: `tandem fuzz --out DIR` writes DIR/case-SEED.json for each disagreement", file=sys.stderr)
        return 4
    results = [judge(f, "--quiet" in sys.argv) for f in files]
    print(f"total: {len(results)} cases, engine agrees with JAX on {sum(results)}")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
