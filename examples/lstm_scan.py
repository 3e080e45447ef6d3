"""An LSTM over lax.scan with a masked mean-squared-error loss, written as a JAX user writes
it: the cell is a Python function scanned over time, the per-step predictions come back
stacked, and the loss masks the padded steps of each sequence (its length) and reduces
outside the scan — the reduction tandem's hoisting pass can move into the scan.

    tools/import/export_jax_program.py examples/lstm_scan.py --out /tmp/lstm
    tandem check --program /tmp/lstm
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

T, BATCH, IN, HIDDEN, OUT = 6, 4, 5, 8, 2


def cell(params, carry, x):
    """One LSTM step: gates from the input and the previous hidden state (i, f, g, o)."""
    w_ih, w_hh, b, w_out = params
    h, c = carry
    gates = x @ w_ih + h @ w_hh + b
    i, f, g, o = jnp.split(gates, 4, axis=-1)
    c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    h = jax.nn.sigmoid(o) * jnp.tanh(c)
    return (h, c), h @ w_out


def function(params, xs, ys, lengths):
    """Masked MSE of the per-step predictions; xs [T, B, IN], ys [T, B, OUT], lengths [B]."""
    mask = (jnp.arange(xs.shape[0])[:, None] < lengths[None, :]).astype(xs.dtype)  # [T, B]
    h0 = jnp.zeros((xs.shape[1], HIDDEN), xs.dtype)
    _, preds = lax.scan(lambda carry, x: cell(params, carry, x), (h0, h0), xs)
    err = jnp.sum((preds - ys) ** 2, axis=-1)  # [T, B]
    return jnp.sum(mask * err) / (jnp.sum(mask) * ys.shape[-1])


def example_args():
    rng = np.random.default_rng(1)
    normal = lambda *s: (rng.standard_normal(s) / np.sqrt(s[0])).astype(np.float32)
    params = (normal(IN, 4 * HIDDEN), normal(HIDDEN, 4 * HIDDEN), np.zeros(4 * HIDDEN, np.float32), normal(HIDDEN, OUT))
    xs = rng.standard_normal((T, BATCH, IN)).astype(np.float32)
    ys = rng.standard_normal((T, BATCH, OUT)).astype(np.float32)
    lengths = np.array([6, 4, 3, 1], np.int32)
    return params, xs, ys, lengths
