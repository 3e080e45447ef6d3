"""equinox.nn.LSTMCell over lax.scan, a readout and an MSE: a community LSTM.

equinox.nn.LSTMCell over lax.scan with a readout and MSE: a community LSTM.

Source: equinox/nn/_rnn.py (`LSTMCell`), equinox==0.13.8 (PyPI), called as released.
Edits: the scan, the readout, the MSE and the sizes (12 steps, input 4, hidden 6) are ours; the
cell's arrays are the function's arguments (eqx.partition / eqx.combine).
"""
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

_cell = eqx.nn.LSTMCell(4, 6, key=jax.random.PRNGKey(1))
_params, _static = eqx.partition(_cell, eqx.is_array)


def function(params, w_out, xs, y):
    cell = eqx.combine(params, _static)

    def step(state, x):
        state = cell(x, state)
        return state, state[0] @ w_out
    _, preds = lax.scan(step, (jnp.zeros(6), jnp.zeros(6)), xs)
    return jnp.mean((preds - y) ** 2)


def example_args():
    rng = np.random.default_rng(9)
    return (_params, (rng.standard_normal((6, 1)) / 2).astype(np.float32),
            rng.standard_normal((12, 4)).astype(np.float32), rng.standard_normal((12, 1)).astype(np.float32))
