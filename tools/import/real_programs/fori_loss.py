"""A loss over lax.fori_loop: a scan whose first carry is the i32 step counter, which indexes
the weights of each step. The counter gets no cotangent (JAX's float0)."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

STEPS = 4


def function(Ws, x):
    def step(i, h):
        return jnp.tanh(h @ lax.dynamic_index_in_dim(Ws, i, keepdims=False))
    return jnp.sum(lax.fori_loop(0, STEPS, step, x) ** 2)


def example_args():
    rng = np.random.default_rng(2)
    return (rng.standard_normal((STEPS, 5, 5)) / 2.5).astype(np.float32), rng.standard_normal((3, 5)).astype(np.float32)
