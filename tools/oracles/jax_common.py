"""What tandem's JAX oracles share (tools/oracles/*_vs_jax.py): tandem's dtype names as
NumPy/JAX scalar types and back, each float dtype's machine epsilon and unit roundoff, and the
headroom rule by which a tandem result passes against JAX in f64. The names are
docs/PROGRAM_JSON.md's "dtype names", kept once, in the importer's tools/import/jaxpr_scope.py.
Imported after JAX is known to be there (each oracle exits 77 first when it is not).
"""
import os
import sys

import numpy as np
import jax.numpy as jnp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "import"))
from jaxpr_scope import DTYPES as NUMPY_NAMES  # noqa: E402  (the one table of names: numpy's -> tandem's)

# tandem's dtype name -> the NumPy scalar type an array of it has
DTYPES = {name: jnp.dtype(np_name).type for np_name, name in NUMPY_NAMES.items()}
# np.dtype -> tandem's name
NAMES = {np.dtype(v): k for k, v in DTYPES.items()}
# machine epsilon (2u) of each floating dtype
EPS = {"f64": 2.0 ** -52, "f32": 2.0 ** -23, "bf16": 2.0 ** -7, "f16": 2.0 ** -10}
# unit roundoff u of each floating dtype, and of tf32 (a dot_general input rounding)
UNIT = {**{k: e / 2 for k, e in EPS.items()}, "tf32": 2.0 ** -11}
# The headroom rule: a floating result of tandem passes when its error against JAX-f64 is at
# most HEADROOM x JAX's own error at the same dtypes, or at most ULPS ulps of its dtype at the
# largest magnitude, whichever is larger (two summation orders of the same arithmetic).
HEADROOM, ULPS = 4.0, 16


def is_float(name):
    return name in EPS


# The `wide` value of the narrowed run: f64 becomes f32, the rest keeps its dtype. No run is wider than f64, so JAX's
# own error at f64 cannot be measured; the narrowed run estimates it (narrowed_f64_error).
NARROW = "narrow"


def dtype_of(name, wide):
    """The JAX dtype a tandem dtype name runs at: floats become f64 in the wide run, f64 becomes
    f32 in the narrowed one."""
    if wide == NARROW:
        return np.float32 if name == "f64" else DTYPES[name]
    return np.float64 if wide and is_float(name) else DTYPES[name]


def narrowed_f64_error(narrow, wide, finite):
    """JAX's own error at f64, estimated from the same program run at f32: its error against the
    f64 run, scaled by the ratio of the two unit roundoffs (to first order a computation's
    rounding error is proportional to the unit roundoff, and the f32 run shows how much the
    program amplifies it: cancellation, long reductions, summation order)."""
    n = np.asarray(narrow, np.float64)
    ok = finite & np.isfinite(n)
    return float(np.max(np.abs(n - wide)[ok], initial=0.0)) * EPS["f64"] / EPS["f32"]


def name_of(dtype, default=None):
    """tandem's name of a NumPy / JAX dtype, `default` when tandem has none."""
    return NAMES.get(np.dtype(dtype), default)


def headroom_bound(jax_err, dtype, scale):
    """The largest error the headroom rule lets pass: JAX's own error `jax_err` at `dtype`,
    `scale` the largest magnitude of the exact result."""
    return max(HEADROOM * jax_err, ULPS * EPS[dtype] * scale)
