#!/usr/bin/env python3
"""`tandem dot`'s f8 rounding against ml_dtypes, whose float8_e4m3fn and float8_e5m2 are JAX's f8
dtypes. The grid: every finite f8 value of the format, each midpoint between neighbours (an exact
tie, where ties-to-even and ties-away differ) and one f32 ulp either side of both, the overflow
boundary and past it, subnormals and half the smallest one, ±Inf, NaN, both signs — all f32
values, given as a float32 lhs.npy and compared with ml_dtypes' astype. The same points one f64
ulp off are given as float64 and compared with JAX's own convert (XLA rounds f64 once; ml_dtypes'
NumPy cast from float64 goes through float32 first and puts such a value on the tie: 1.0625 +
2^-40 is 1.125 in JAX and tandem, 1.0 in ml_dtypes) where JAX is installed, else that half is
reported skipped. Each runs as ANY_F8_ANY_F8_F32 on lhs [N, 1] times rhs [[1]]: 1 is exact in f8
and one product is exact in f32, so out.npy holds tandem's rounding of each value (NaN must meet
NaN; the sign of zero is the C++ tests' to check). Exit 0 when all agree, 1 when not, 77 (a ctest
SKIP) without numpy or ml_dtypes.   ARGS: TANDEM_BINARY"""
import json
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

FORMATS = {"e4m3fn": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
warnings.simplefilter("ignore", RuntimeWarning)  # the casts overflow on purpose


def anchors(f8):
    """Every finite f8 value, the midpoints after each, and the values past the range."""
    values = np.arange(256, dtype=np.uint8).view(f8).astype(np.float64)
    finite = np.unique(np.abs(values[np.isfinite(values)]))  # 0 .. max, increasing
    top = 2 * finite[-1] - finite[-2]  # the value after max
    mids = (finite + np.append(finite[1:], top)) / 2  # exact in f32 and f64
    return np.concatenate([finite, mids, [top, 2 * top, 1e30, finite[1] / 4, 1e-30]])


def with_neighbours(base, dtype):
    b = base.astype(dtype)
    g = np.concatenate([b, np.nextafter(b, dtype(np.inf)), np.nextafter(b, dtype(-np.inf)), [np.inf, np.nan]]).astype(dtype)
    return np.concatenate([g, -g])


def jax_convert():
    """JAX's f64 -> f8 convert (XLA), or None without JAX."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return lambda x, f8: np.asarray(jax.jit(lambda v: v.astype(f8))(jnp.asarray(x))).astype(np.float64)


def tandem_round(tandem, work, tag, name, x):
    inp, out = os.path.join(work, tag, "in"), os.path.join(work, tag, "out")
    os.makedirs(inp)
    np.save(os.path.join(inp, "lhs.npy"), x.reshape(-1, 1))
    np.save(os.path.join(inp, "rhs.npy"), np.ones((1, 1), x.dtype))
    p = subprocess.run([tandem, "dot", "--in", inp, "--out", out, "-q", "--algorithm", "ANY_F8_ANY_F8_F32",
                        "--f8-format", name], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"{tag}: tandem dot exit {p.returncode}: {p.stderr.strip()}  FAIL")
        return None
    with open(os.path.join(out, "run.json")) as f:
        assert json.load(f)["f8_formats"] == {"lhs": name, "rhs": name}
    return np.load(os.path.join(out, "out.npy")).astype(np.float64).reshape(-1)


def compare(tag, x, got, want, oracle):
    if got is None:
        return 1
    wrong = ~((got == want) | (np.isnan(got) & np.isnan(want)))
    print(f"{tag}: {x.size} values, {int(wrong.sum())} differ from {oracle}{'  FAIL' if wrong.any() else ''}")
    for i in np.flatnonzero(wrong)[:10]:
        print(f"  {x[i]!r}: tandem {got[i]!r}, {oracle} {want[i]!r}")
    return int(wrong.any())


def main():
    tandem, bad, jconv = sys.argv[1], 0, jax_convert()
    with tempfile.TemporaryDirectory() as work:
        for name, f8 in FORMATS.items():
            base = anchors(f8)
            x32 = with_neighbours(base, np.float32)
            bad += compare(f"{name}/f32", x32, tandem_round(tandem, work, f"{name}/f32", name, x32),
                           x32.astype(f8).astype(np.float64), f"ml_dtypes {ml_dtypes.__version__}")
            x64 = with_neighbours(base, np.float64)
            if jconv is None:
                print(f"{name}/f64: JAX not installed, the f64 points are not checked")
                continue
            got = tandem_round(tandem, work, f"{name}/f64", name, x64)
            bad += compare(f"{name}/f64", x64, got, jconv(x64, f8), "JAX's convert")
            via32 = x64.astype(f8).astype(np.float64)  # ml_dtypes' double rounding, for the record
            print(f"  ({int(np.sum(via32 != jconv(x64, f8)) - np.sum(np.isnan(via32)))} of them ml_dtypes' "
                  "float64 cast, which rounds through float32, puts elsewhere)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
