#!/usr/bin/env python3
"""`tandem dot` against JAX itself: every Precision and DotAlgorithm preset x input dtype
(f32, bf16, f16, f64) x shapes with batch axes, non-default and multiple contracting axes,
K = 4096 (where the error classes separate) and Inf/NaN rows, plus preferred_element_type.

For each run three answers are measured against JAX in f64 (jax_enable_x64, the exact product
of the inputs as given), as max |x - exact| / sum_k |a||b| over the finite outputs:
  * jax_cpu  - jax.lax.dot_general(..., precision=PRESET) on XLA:CPU, or "rejected" where
               XLA:CPU refuses the preset;
  * model    - the preset's documented meaning written with JAX ops XLA:CPU does implement:
               inputs rounded to the storage type of the name LHS_RHS_ACCUM (tf32 by bit
               rounding), products accumulated in f32/f64 by a HIGHEST dot, the _X3/_X6/_X9
               presets as 3/6/9 narrow partial products (XLA's split: leading terms truncated,
               the last rounded; small products first, NaN guard), the
               result rounded to the accumulation type, then to the output dtype;
  * tandem   - `tandem dot` on the same .npy files.
tandem passes a run when its error is in the preset's class: at most 4x the model's error
(or 4 f32/f64 unit roundoffs), and, where the preset's reduction is visible (model error above
64 unit roundoffs), at least 1/4 of it - a preset silently computed in full precision fails.
For the narrow accumulators (F16_F16_F16, BF16_BF16_BF16) the model is the literal
"accumulation type": a sequential sum rounded to f16/bf16 after every add (as tandem and
cuBLAS COMPUTE_16F do), while XLA:CPU accumulates wider and rounds once - reported, not
judged. Inf/NaN must sit where the exact product has them; result dtype and shape must be
JAX's.

    tools/oracles/dot_vs_jax.py TANDEM_BINARY WORKDIR [--quick] [--only REGEX]
--quick runs one input dtype per shape, --only the runs whose name (e.g.
mm_k4096/f32/algorithm:BF16_BF16_F32_X3) matches REGEX: with TANDEM_INJECT, a fault fails them.
Exits 0 when every run agrees, 1 when one does not, 77 when JAX is not installed.
"""
import json
import os
import re
import subprocess
import sys
import zlib

try:  # numpy too: a Python without it is a skip (77) naming what is missing, not a traceback
    import numpy as np
    import jax
    import jax.numpy as jnp
    from jax import lax
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from jax_common import DTYPES, HEADROOM, UNIT  # the oracles' dtypes, unit roundoffs and headroom
except ImportError as missing:
    print(f"skip: {missing} (for {sys.executable})", file=sys.stderr)
    sys.exit(77)

jax.config.update("jax_enable_x64", True)
ONLY = None  # --only REGEX
PRECISIONS = ["DEFAULT", "HIGH", "HIGHEST"]
PRESETS = [p.name for p in lax.DotAlgorithmPreset if "F8" not in p.name]
F8 = [p.name for p in lax.DotAlgorithmPreset if "F8" in p.name]
F8_DTYPES = {"e4m3fn": jnp.float8_e4m3fn, "e5m2": jnp.float8_e5m2}
SPLITS = {"X3": (2, [(1, 0), (0, 1)]), "X6": (3, [(1, 1), (2, 0), (0, 2), (1, 0), (0, 1)]),
          "X9": (3, [(2, 2), (2, 1), (1, 2), (1, 1), (2, 0), (0, 2), (1, 0), (0, 1)])}

# (name, lhs shape, rhs shape, (lhs contracting, rhs contracting, lhs batch, rhs batch), dtypes)
SHAPES = [
    ("mm_k4096", (16, 4096), (4096, 16), ((1,), (0,), (), ()), ["f32", "bf16", "f16", "f64"]),
    ("batch_nt_k512", (4, 512, 8), (4, 12, 512), ((1,), (2,), (0,), (0,)), ["f32", "bf16"]),
    ("two_contract_k345", (2, 23, 5, 15), (15, 2, 23, 3), ((1, 3), (2, 0), (0,), (1,)), ["f32", "f16"]),
    ("inf_nan_k1023", (4, 1023), (1023, 8), ((1,), (0,), (), ()), ["f32", "bf16"]),
    # all-positive products: rounding errors no longer cancel, so truncation shows
    ("positive_k4096", (8, 4096), (4096, 8), ((1,), (0,), (), ()), ["f32"]),
    # no contracting axis (empty lists, `--lhs-contracting ''`): JAX's outer product, batch first
    ("outer", (2, 3), (4, 5), ((), (), (), ()), ["f32"]),
    ("batch_outer", (2, 3), (2, 5), ((), (), (0,), (0,)), ["f32"]),
]
# preferred_element_type runs on mm_k4096: (input dtype, flag, precision or preset, preferred)
PREFERRED = [("bf16", "precision", "DEFAULT", "f32"), ("f16", "algorithm", "F16_F16_F32", "f32"),
             ("f32", "algorithm", "BF16_BF16_F32", "bf16"), ("f32", "precision", "DEFAULT", "f64"),
             ("f32", "precision", "HIGHEST", "f64"), ("bf16", "precision", "HIGH", "f64"),
             ("f32", "algorithm", "F32_F32_F32", "f64"), ("bf16", "algorithm", "BF16_BF16_F32", "bf16"),
             ("f32", "algorithm", "F64_F64_F64", "f32"), ("f32", "precision", "DEFAULT", "bf16")]


def round_tf32(x):
    """f32 -> nearest-even value with a 10-bit mantissa (tf32), non-finite kept."""
    x = np.asarray(x, np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    r = ((u + 0x0FFF + ((u >> 13) & 1)) & ~np.uint64(0x1FFF)).astype(np.uint32).view(np.float32)
    return np.where(np.isfinite(x), r, x)


def truncate(x, fmt):
    """f32 x with the mantissa bits below bf16's (16) or tf32's (13) cleared."""
    x = np.asarray(x, np.float32)
    mask = np.uint32(0xFFFF0000 if fmt == "bf16" else 0xFFFFE000)
    return jnp.asarray(np.where(np.isfinite(x), (x.view(np.uint32) & mask).view(np.float32), x))


def to_storage(x, fmt):
    """x (any float) rounded to `fmt` and held as f32 (f64 for f64)."""
    if fmt == "f64":
        return jnp.asarray(x, jnp.float64)
    x32 = jnp.asarray(x, jnp.float32)
    if fmt == "tf32":
        return jnp.asarray(round_tf32(np.asarray(x32)))
    return x32.astype(DTYPES[fmt]).astype(jnp.float32)


def hdot(a, b, dims, acc):
    c, d = dims[:2], dims[2:]
    return lax.dot_general(a, b, (c, d), precision=lax.Precision.HIGHEST, preferred_element_type=acc)


def as_bmk(x, free_first, contract, batch):
    """x transposed to [batch..., free..., contract...] and reshaped to [B, F, K]."""
    x = np.asarray(x.astype(jnp.float32))
    free = [i for i in range(x.ndim) if i not in contract and i not in batch]
    order = list(batch) + (free + list(contract) if free_first else list(contract) + free)
    t = np.transpose(x, order)
    nb = int(np.prod([x.shape[i] for i in batch]))
    nk = int(np.prod([x.shape[i] for i in contract]))
    return t.reshape(nb, -1, nk) if free_first else t.reshape(nb, nk, -1)


def sequential_narrow(a, b, dims, fmt, out_shape):
    """sum_k a_k*b_k with the accumulator rounded to `fmt` after every add (k in order)."""
    A, B = as_bmk(to_storage(a, fmt), True, dims[0], dims[2]), as_bmk(to_storage(b, fmt), False, dims[1], dims[3])
    acc = np.zeros((A.shape[0], A.shape[1], B.shape[2]), np.float32)
    dt = DTYPES[fmt]
    for k in range(A.shape[2]):
        acc = (acc + A[:, :, k, None] * B[:, None, k, :]).astype(dt).astype(np.float32)
    return jnp.asarray(acc.reshape(out_shape))


def model(kind, name, a, b, dims, out):
    """The preset's (or Precision's) meaning on f64-exact JAX ops, as an f64 numpy array."""
    if kind == "precision" or name == "DEFAULT":
        # A Precision "has no impact on CPU backends", and preferred_element_type is "a hint
        # to the compiler to accumulate the dot product using this data type": f64 if either is.
        acc = jnp.float64 if jnp.float64 in (a.dtype, DTYPES[out]) else jnp.float32
        return np.asarray(hdot(a, b, dims, acc).astype(DTYPES[out]), np.float64)
    parts = name.split("_")
    fmt, accum = parts[0].lower(), parts[2].lower()
    if accum in ("f16", "bf16"):
        shape = hdot(a.astype(jnp.float32), b.astype(jnp.float32), dims, jnp.float32).shape
        r = sequential_narrow(a, b, dims, fmt, shape)
    elif len(parts) == 3:
        acc = jnp.float64 if accum == "f64" else jnp.float32
        r = hdot(to_storage(a, fmt), to_storage(b, fmt), dims, acc)
    else:
        n, small = SPLITS[parts[3]]
        def split(x):  # XLA's split (its GPU dot-algorithm rewriter): truncate, the last term rounded
            rest, terms = jnp.asarray(x, jnp.float32), []
            for i in range(n):
                terms.append(to_storage(rest, fmt) if i == n - 1 else truncate(rest, fmt))
                rest = rest - terms[-1]
            return terms
        sa, sb = split(a), split(b)
        r = sum(hdot(sa[i], sb[j], dims, jnp.float32) for i, j in small)
        r = jnp.where(jnp.isnan(r), 0.0, r) + hdot(sa[0], sb[0], dims, jnp.float32)
    if accum in ("f16", "bf16"):
        r = r.astype(DTYPES[accum])
    return np.asarray(r.astype(DTYPES[out]), np.float64)


def jax_cpu(kind, name, a, b, dims, pref):
    c, d = dims[:2], dims[2:]
    prec = lax.Precision[name] if kind == "precision" else lax.DotAlgorithmPreset[name]
    try:
        r = lax.dot_general(a, b, (c, d), precision=prec, preferred_element_type=pref and DTYPES[pref])
        return r, np.asarray(r, np.float64)
    except ValueError as e:
        if "not supported" not in str(e):
            raise
        return None, None


def inputs(shape_name, lshape, rshape, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{shape_name}/{dtype}".encode()))
    a = rng.uniform(-1, 1, lshape).astype(np.float32)
    if shape_name.startswith("inf_nan"):  # positive rhs: the exact rows are +Inf, NaN, -Inf
        b = rng.uniform(0.5, 1, rshape).astype(np.float32)
        a[0, 3], a[1, 7], a[2, 5] = np.inf, np.nan, -np.inf
    elif shape_name.startswith("positive"):
        a = rng.uniform(0.5, 1, lshape).astype(np.float32)
        b = rng.uniform(0.5, 1, rshape).astype(np.float32)
    else:
        b = rng.uniform(-1, 1, rshape).astype(np.float32)
    return jnp.asarray(a).astype(DTYPES[dtype]), jnp.asarray(b).astype(DTYPES[dtype])


def save(path, x, dtype):
    """bf16 has no NumPy dtype: it is written as f32 (exact) and passed with --X-dtype bf16."""
    np.save(path, np.asarray(x.astype(jnp.float32) if dtype == "bf16" else x))


def normalized_error(x, exact, scale):
    fin = np.isfinite(exact)
    return float(np.max(np.abs(x[fin] - exact[fin]) / np.maximum(scale[fin], 1e-300), initial=0.0))


def specials_match(x, exact):
    bad = ~np.isfinite(exact)
    return bool(np.all(np.isfinite(x[~bad])) and np.array_equal(np.isnan(x[bad]), np.isnan(exact[bad]))
                and np.array_equal(x[bad & ~np.isnan(exact)], exact[bad & ~np.isnan(exact)]))


def run_tandem(tandem, work, tag, a, b, dtype, dims, kind, name, pref, extra=()):
    inp, out = os.path.join(work, tag, "in"), os.path.join(work, tag, "out")
    os.makedirs(inp, exist_ok=True)
    save(os.path.join(inp, "lhs.npy"), a, dtype)
    save(os.path.join(inp, "rhs.npy"), b, dtype)
    cmd = [tandem, "dot", "--in", inp, "--out", out, f"--{kind}", name, "-q",
           "--lhs-contracting", ",".join(map(str, dims[0])), "--rhs-contracting", ",".join(map(str, dims[1]))]
    if dims[2]:
        cmd += ["--lhs-batch", ",".join(map(str, dims[2])), "--rhs-batch", ",".join(map(str, dims[3]))]
    if dtype == "bf16":
        cmd += ["--lhs-dtype", "bf16", "--rhs-dtype", "bf16"]
    if pref:
        cmd += ["--preferred-element-type", pref]
    cmd += list(extra)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return p, None, None
    with open(os.path.join(out, "run.json")) as f:
        return p, np.load(os.path.join(out, "out.npy")).astype(np.float64), json.load(f)


def check(tandem, work, shape_name, lshape, rshape, dims, dtype, kind, name, pref, findings):
    tag = f"{shape_name}/{dtype}/{kind}:{name}" + (f"/pref:{pref}" if pref else "")
    if ONLY and not re.search(ONLY, tag):
        return 0
    findings["runs"] = findings.get("runs", 0) + 1
    a, b = inputs(shape_name, lshape, rshape, dtype)
    out = pref or dtype
    a64, b64 = a.astype(jnp.float64), b.astype(jnp.float64)
    exact = np.asarray(hdot(a64, b64, dims, jnp.float64))
    scale = np.asarray(hdot(jnp.abs(a64), jnp.abs(b64), dims, jnp.float64))
    want = model(kind, name, a, b, dims, out)
    jr, jx = jax_cpu(kind, name, a, b, dims, pref)
    p, got, meta = run_tandem(tandem, work, tag, a, b, dtype, dims, kind, name, pref)
    if got is None:
        print(f"{tag}: tandem exit {p.returncode}: {p.stderr.strip()}  FAIL")
        return 1
    problems = []
    if got.shape != want.shape:
        problems.append(f"shape {got.shape} != JAX's {want.shape}")
    if meta["out_dtype"] != out:
        problems.append(f"result dtype {meta['out_dtype']} != JAX's {out}")
    if jr is not None and np.dtype(jr.dtype).name != np.dtype(DTYPES[out]).name:
        problems.append(f"JAX's result dtype {jr.dtype} is not {out}")
    if problems:
        print(f"{tag}: " + "; ".join(problems) + "  FAIL")
        return 1
    e_t, e_m = normalized_error(got, exact, scale), normalized_error(want, exact, scale)
    floor = UNIT["f64"] if (kind == "precision" or name in ("DEFAULT", "F64_F64_F64")) and out == "f64" else UNIT["f32"]
    upper = HEADROOM * max(e_m, floor)
    lower = e_m / HEADROOM if e_m > 64 * floor else 0.0
    ok = lower <= e_t <= upper and specials_match(got, exact)
    if jx is None:
        jax_note = "rejected by XLA:CPU"
        findings.setdefault("rejected by XLA:CPU", set()).add(name)
    else:
        e_j = normalized_error(jx, exact, scale)
        verdict = ("faithful" if lower <= e_j <= upper
                   else "more precise than the preset" if e_j < e_m else "LESS precise than the preset")
        if verdict != "faithful":
            findings.setdefault(f"XLA:CPU {verdict}", set()).add(f"{name} on {dtype}" + (f" -> {pref}" if pref else ""))
        jax_note = f"jax_cpu 2^{np.log2(max(e_j, 1e-300)):.1f} ({verdict}{'' if specials_match(jx, exact) else ', Inf/NaN misplaced'})"
    print(f"{tag}: tandem 2^{np.log2(max(e_t, 1e-300)):.1f} [{meta['algorithm_run']}], "
          f"model 2^{np.log2(max(e_m, 1e-300)):.1f}, {jax_note}; class [{lower:.3g}, {upper:.3g}]"
          f"{'' if ok else '  FAIL'}")
    return 0 if ok else 1


def check_f8(tandem, work):
    """The f8 presets, which XLA:CPU rejects (reported): tandem rounds each operand to its f8 dtype
    (--f8-format) and accumulates in f32, so it must be within K + 1 f32 roundings (of sum|a8||b8|)
    of the exact dot of the f8 operands JAX's own convert makes, Inf/NaN where that has them."""
    dims, k = ((1,), (0,), (), ()), 8
    a, b = inputs("f8", (4, k), (k, 4), "f32")
    bad = 0
    for name in F8:
        jr, _ = jax_cpu("algorithm", name, a, b, dims, None)
        for fl, fr in (("e4m3fn", "e4m3fn"), ("e5m2", "e5m2"), ("e4m3fn", "e5m2")):
            a8, b8 = a.astype(F8_DTYPES[fl]).astype(jnp.float64), b.astype(F8_DTYPES[fr]).astype(jnp.float64)
            exact = np.asarray(hdot(a8, b8, dims, jnp.float64))
            scale = np.asarray(hdot(jnp.abs(a8), jnp.abs(b8), dims, jnp.float64))
            p, got, meta = run_tandem(tandem, work, f"f8/{name}/{fl},{fr}", a, b, "f32", dims, "algorithm", name,
                                      None, ["--f8-format", f"{fl},{fr}"])
            e_t = np.inf if got is None else normalized_error(got, exact, scale)
            ok = (got is not None and e_t <= (k + 1) * UNIT["f32"] and specials_match(got, exact)
                  and meta["f8_formats"] == {"lhs": fl, "rhs": fr})
            bad += not ok
            print(f"f8/{name}/{fl},{fr}: tandem exit {p.returncode} 2^{np.log2(max(e_t, 1e-300)):.1f} against "
                  f"JAX's f8 operands, jax_cpu {'rejected' if jr is None else 'ran'}{'' if ok else '  FAIL'}")
    return bad


def main():
    tandem, work = sys.argv[1], sys.argv[2]
    global ONLY
    quick = "--quick" in sys.argv[3:]
    ONLY = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    names = [("precision", p) for p in PRECISIONS] + [("algorithm", p) for p in PRESETS]
    findings, bad = {}, 0
    for shape_name, lshape, rshape, dims, dtypes in SHAPES:
        for dtype in dtypes[:1] if quick else dtypes:
            for kind, name in names:
                bad += check(tandem, work, shape_name, lshape, rshape, dims, dtype, kind, name, None, findings)
    for dtype, kind, name, pref in PREFERRED:
        bad += check(tandem, work, *SHAPES[0][:4], dtype, kind, name, pref, findings)
    runs = findings.pop("runs", 0)
    if ONLY and not runs:
        print(f"--only {ONLY} matches no run")
        return 1
    bad += 0 if ONLY else check_f8(tandem, work)
    print("Findings (JAX %s, XLA:CPU):" % jax.__version__)
    for k, v in sorted(findings.items()):
        print(f"  {k}: {', '.join(sorted(v))}")
    print(f"{runs} runs{'' if ONLY else f' + {len(F8)} f8 presets x 3 format pairs'}, {bad} outside tandem's class")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
