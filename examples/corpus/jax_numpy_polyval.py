"""jax.numpy.polyval (Horner's rule as a lax.scan) fitted by least squares.

jax.numpy.polyval (JAX's implementation: Horner's rule as a lax.scan over the coefficients)
fitted to data by least squares.

Source: jax/_src/numpy/polynomial.py (`polyval`), jax==0.10.2, called as released.
Edits: the least-squares loss and the sizes (degree 5, 16 points) are ours.
"""
import jax.numpy as jnp
import numpy as np


def function(coeffs, x, y):
    return jnp.mean((jnp.polyval(coeffs, x) - y) ** 2)


def example_args():
    rng = np.random.default_rng(16)
    x = np.linspace(-1, 1, 16).astype(np.float32)
    return rng.standard_normal(6).astype(np.float32), x, np.sin(3 * x).astype(np.float32)
