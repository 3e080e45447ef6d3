#!/usr/bin/env python3
"""Exact ties of the narrow formats: what JAX does with them, and what `tandem dot` does.

The grid (reference/rounding.h, tie_points, built again here): 1 + u/2 (the even neighbour
below), 1 + 3u/2 (above), 2 - u/2 (up into the next binade), either side of the largest finite
value (the upper one overflows), the subnormal ties q/2, 3q/2, 5q/2, 2^emin - q/2; both signs.

1. JAX's convert_element_type (jit, XLA:CPU) of the grid, from float32 and from float64, into
   bfloat16, float16, float8_e4m3fn, float8_e5m2 and (from float64) float32, against round to
   nearest, ties to even (a NumPy model: np.round halves to even) and ml_dtypes' astype: the
   rounding reference/rounding and engine/core/f8 implement, so the suites' exact tie cases
   (dot/ties/..., prims_vs_reference's convert_ties rows) check JAX's semantics. One known
   difference, printed as KNOWN: XLA:CPU flushes subnormal float32 results to zero (its
   denormal mode), so float64 -> float32 / bfloat16 gives 0 at the subnormal ties where
   IEEE rounding, ml_dtypes and tandem give the subnormal.
2. `tandem dot` with the narrowing presets (BF16_BF16_F32, BF16_BF16_BF16, F16_F16_F32,
   F16_F16_F16, TF32_TF32_F32) on lhs [N, 1] = the grid (float32) times rhs [[1]]: one exact
   product each, so out.npy is tandem's rounding of each tie, against ml_dtypes (TF32, which
   ml_dtypes lacks: the NumPy model with 11 significant bits).
Exit 0 when all agree, 1 when not, 77 (ctest SKIP) without numpy / ml_dtypes.
ARGS: TANDEM_BINARY"""
import os
import subprocess
import sys
import tempfile
import warnings

try:
    import numpy as np
    import ml_dtypes
except ImportError as missing:
    print(f"SKIP: {missing} (for {sys.executable}; pip install ml_dtypes)", file=sys.stderr)
    sys.exit(77)

warnings.simplefilter("ignore", RuntimeWarning)  # overflow to Inf on purpose
# name: (significand bits p, emin, max finite, NumPy dtype or None)
FORMATS = {"bf16": (8, -126, float(ml_dtypes.finfo(ml_dtypes.bfloat16).max), ml_dtypes.bfloat16),
           "f16": (11, -14, 65504.0, np.float16),
           "e4m3fn": (4, -6, 448.0, ml_dtypes.float8_e4m3fn),
           "e5m2": (3, -14, 57344.0, ml_dtypes.float8_e5m2),
           "f32": (24, -126, float(np.finfo(np.float32).max), np.float32),
           "tf32": (11, -126, (2 - 2.0 ** -10) * 2.0 ** 127, None)}


def ties(p, emin, top):
    u, q = 2.0 ** (1 - p), 2.0 ** (emin - p + 1)
    half = 2.0 ** (np.frexp(top)[1] - 1 - p)  # half the spacing at the largest finite value
    t = np.array([1 + u / 2, 1 + 3 * u / 2, 2 - u / 2, top - half, top + half, q / 2, 3 * q / 2, 5 * q / 2, 2.0 ** emin - q / 2])
    return np.concatenate([t, -t])


def rne(x, p, emin, top, nan_overflow=False):
    """Round to nearest, ties to even, into (p, emin, top): the model JAX is held to."""
    out = []
    for a in x:
        e = max(int(np.frexp(abs(a))[1]) - 1, emin) - (p - 1)  # exponent of the spacing at a
        r = np.round(abs(a) / 2.0 ** e) * 2.0 ** e  # np.round: halves to even
        out.append(np.copysign(np.nan if nan_overflow else np.inf, a) if r > top else np.copysign(r, a))
    return np.array(out)


def differ(got, want):
    return ~((got == want) | (np.isnan(got) & np.isnan(want)))


def check_jax():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("JAX not installed: its converts are not checked")
        return 0
    jax.config.update("jax_enable_x64", True)
    bad = 0
    for name, (p, emin, top, dt) in FORMATS.items():
        if dt is None:
            continue
        x = ties(p, emin, top)
        want = rne(x, p, emin, top, nan_overflow=name == "e4m3fn")
        for src in (np.float32, np.float64):
            if name == "f32" and src is np.float32:
                continue
            if not np.array_equal(x.astype(src).astype(np.float64), x):
                continue  # float32 holds only some formats' grids (all of these do)
            xs = jnp.asarray(x.astype(src))
            got = np.asarray(jax.jit(lambda v: v.astype(dt))(xs)).astype(np.float64)
            mld = x.astype(src).astype(dt).astype(np.float64)
            wrong = differ(got, want)
            ftz = wrong & (got == 0) & (np.abs(x) < 2.0 ** -126) & (src is np.float64)
            tag = f"{src.__name__} -> {name}"
            print(f"{tag}: {x.size} ties, JAX == round-half-even on {int((~wrong).sum())}"
                  f"{', ml_dtypes == round-half-even' if not differ(mld, want).any() else ''}")
            if ftz.any():
                print(f"  KNOWN: {int(ftz.sum())} subnormal results flushed to 0 by XLA:CPU "
                      f"(e.g. {x[np.flatnonzero(ftz)[0]]!r}: JAX 0, IEEE {want[np.flatnonzero(ftz)[0]]!r})")
            if (wrong & ~ftz).any():
                i = np.flatnonzero(wrong & ~ftz)[0]
                print(f"  FAIL: {x[i]!r}: JAX {got[i]!r}, round-half-even {want[i]!r}")
                bad = 1
            if differ(mld, want).any() and src is np.float32:
                print("  FAIL: ml_dtypes disagrees with round-half-even")
                bad = 1
    return bad


def check_tandem(tandem):
    bad = 0
    with tempfile.TemporaryDirectory() as work:
        for preset, fmt in [("BF16_BF16_F32", "bf16"), ("BF16_BF16_BF16", "bf16"), ("F16_F16_F32", "f16"),
                            ("F16_F16_F16", "f16"), ("TF32_TF32_F32", "tf32")]:
            p, emin, top, dt = FORMATS[fmt]
            x = ties(p, emin, top).astype(np.float32)
            inp, out = os.path.join(work, preset, "in"), os.path.join(work, preset, "out")
            os.makedirs(inp)
            np.save(os.path.join(inp, "lhs.npy"), x.reshape(-1, 1))
            np.save(os.path.join(inp, "rhs.npy"), np.ones((1, 1), np.float32))
            r = subprocess.run([tandem, "dot", "--in", inp, "--out", out, "-q", "--algorithm", preset],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{preset}: tandem dot exit {r.returncode}: {r.stderr.strip()}  FAIL")
                bad = 1
                continue
            got = np.load(os.path.join(out, "out.npy")).astype(np.float64).reshape(-1)
            want = x.astype(dt).astype(np.float64) if dt is not None else rne(x.astype(np.float64), p, emin, top)
            wrong = differ(got, want)
            oracle = "ml_dtypes" if dt is not None else "round-half-even (11 bits)"
            print(f"{preset}: {x.size} ties, {int(wrong.sum())} differ from {oracle}{'  FAIL' if wrong.any() else ''}")
            for i in np.flatnonzero(wrong)[:5]:
                print(f"  {x[i]!r}: tandem {got[i]!r}, {oracle} {want[i]!r}")
            bad |= int(wrong.any())
    return bad


def main():
    return 1 if check_jax() | check_tandem(sys.argv[1]) else 0


if __name__ == "__main__":
    sys.exit(main())
