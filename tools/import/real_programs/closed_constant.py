"""A loss closing over constant arrays (a fixed projection P and a per-column scale, as
module-level NumPy arrays often are): JAX differentiates w.r.t. the arguments only, so it
saves nothing for the constants' cotangents: not x @ W, which only P's cotangent reads."""
import jax.numpy as jnp
import numpy as np

P = np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 4)
SCALE = np.arange(1, 5, dtype=np.float32)


def function(W, x):
    h = x @ W  # [3, 5]
    return jnp.sum(jnp.sin(h @ P) * SCALE)


def example_args():
    rng = np.random.default_rng(3)
    return (rng.standard_normal((6, 5)) / 2).astype(np.float32), rng.standard_normal((3, 6)).astype(np.float32)
