"""stax: Dense, BatchNorm, Gelu, Softplus and Tanh layers under an MSE.

jax.example_libraries.stax: a Dense / BatchNorm / Gelu / Softplus stack and an MSE loss.

Source: JAX's stax layers (jax/example_libraries/stax.py, jax==0.10.2): BatchNorm (batch
statistics, rsqrt), Gelu (jax.nn.gelu), Softplus (jax.nn.softplus), Tanh.
Edits: the model and the MSE loss around stax's apply_fun are ours; batch of 8.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.example_libraries import stax

init_fun, predict = stax.serial(
    stax.Dense(16), stax.BatchNorm(axis=(0,)), stax.Gelu, stax.Dense(16), stax.Softplus,
    stax.Dense(4), stax.Tanh)


def function(params, x, y):
    return jnp.mean((predict(params, x) - y) ** 2)


def example_args():
    _, params = init_fun(jax.random.PRNGKey(1), (-1, 6))
    rng = np.random.default_rng(1)
    return params, rng.standard_normal((8, 6)).astype(np.float32), rng.standard_normal((8, 4)).astype(np.float32)
