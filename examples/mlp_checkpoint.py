"""An MLP's training loss with rematerialization, written as a JAX user writes it: each hidden
layer is a jax.checkpoint'ed function whose pre-activation is named with checkpoint_name, and
the policy saves only those names, so the backward pass recomputes the tanh and keeps the
matmul results. tandem differentiates `function` itself; export and check it with

    tools/import/export_jax_program.py examples/mlp_checkpoint.py --out /tmp/mlp
    tandem check --program /tmp/mlp
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.ad_checkpoint import checkpoint_name

SIZES = (6, 16, 16, 3)  # input, two hidden layers, output
BATCH = 8

def layer(params, h):
    w, b = params
    z = checkpoint_name(h @ w + b, "pre")
    return jnp.tanh(z)

# Save the named pre-activations, recompute the rest (the tanh) in the backward pass.
remat_layer = jax.checkpoint(layer, policy=jax.checkpoint_policies.save_only_these_names("pre"))

def function(params, x, y):
    """Mean squared error of the MLP's prediction; `params` is a list of (w, b)."""
    h = x
    for p in params[:-1]:
        h = remat_layer(p, h)
    w, b = params[-1]
    pred = h @ w + b
    return jnp.mean((pred - y) ** 2)

def example_args():
    rng = np.random.default_rng(0)
    params = [(rng.standard_normal((m, n)).astype(np.float32) / np.sqrt(m), np.zeros(n, np.float32))
              for m, n in zip(SIZES[:-1], SIZES[1:])]
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    y = rng.standard_normal((BATCH, SIZES[-1])).astype(np.float32)
    return params, x, y
