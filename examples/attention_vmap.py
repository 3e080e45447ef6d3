"""A single-head self-attention block for ONE example, written as a JAX user writes it and
batched with jax.vmap: q/k/v projections, scaled dot-product scores, jax.nn.softmax, the
output projection and a residual connection. VMAP names the batch axis (the parameters are
shared, the tokens are batched on axis 0), so tandem checks its vmap of the program against
the per-example loop.

    tools/import/export_jax_program.py examples/attention_vmap.py --out /tmp/attn
    tandem check --program /tmp/attn
"""
import jax
import jax.numpy as jnp
import numpy as np

SEQ, DIM, BATCH = 5, 8, 4

# jax.vmap(function, in_axes=(None, 0)) with a batch of BATCH: tandem's vmap runs the same.
VMAP = {"in_axes": [None, 0], "size": BATCH}


def function(params, x):
    """x [SEQ, DIM] -> [SEQ, DIM]; params = (wq, wk, wv, wo), each [DIM, DIM]."""
    wq, wk, wv, wo = params
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.T / jnp.sqrt(jnp.float32(DIM))
    attn = jax.nn.softmax(scores, axis=-1)
    return x + (attn @ v) @ wo


def example_args():
    rng = np.random.default_rng(2)
    params = tuple((rng.standard_normal((DIM, DIM)) / np.sqrt(DIM)).astype(np.float32) for _ in range(4))
    x = rng.standard_normal((SEQ, DIM)).astype(np.float32)
    return params, x
