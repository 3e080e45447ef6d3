"""equinox.nn.GRUCell over lax.scan, a readout and an MSE: a community GRU.

equinox.nn.GRUCell over lax.scan, as equinox's docstring shows (`scan_fn = lambda state,
input: (cell(input, state), None)`), with an MSE on the final state: a community GRU.

Source: equinox/nn/_rnn.py (`GRUCell`), equinox==0.13.8 (PyPI), called as released.
Edits: the scan collects every state (the docstring's returns None), a readout and MSE, and
the sizes (10 steps, input 3, hidden 8) are ours; the cell's arrays are the function's
arguments (eqx.partition / eqx.combine), so tandem differentiates them.
"""
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

_cell = eqx.nn.GRUCell(3, 8, key=jax.random.PRNGKey(0))
_params, _static = eqx.partition(_cell, eqx.is_array)


def function(params, w_out, xs, y):
    cell = eqx.combine(params, _static)
    scan_fn = lambda state, inp: (cell(inp, state), cell(inp, state))
    _, states = lax.scan(scan_fn, jnp.zeros(8), xs)
    return jnp.mean((states @ w_out - y) ** 2)


def example_args():
    rng = np.random.default_rng(8)
    return (_params, (rng.standard_normal((8, 2)) / 3).astype(np.float32),
            rng.standard_normal((10, 3)).astype(np.float32), rng.standard_normal((10, 2)).astype(np.float32))
