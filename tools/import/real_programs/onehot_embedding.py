"""A transformer's token embedding as many write it: one_hot(tokens) @ E, then a tanh layer
and a mean. one_hot depends only on the integer tokens, so JAX differentiates only through E
(the one-hot matrix is a constant of the dot): under dots_saveable it saves the one-hot
matrix, never E, and computes no cotangent for the one-hot side."""
import jax
import jax.numpy as jnp
import numpy as np

VOCAB, D, T = 11, 8, 6


def function(E, W, tokens):
    x = jax.nn.one_hot(tokens, VOCAB, dtype=E.dtype) @ E  # [T, D]
    return jnp.mean(jnp.tanh(x @ W) ** 2)


def example_args():
    rng = np.random.default_rng(1)
    return (rng.standard_normal((VOCAB, D)).astype(np.float32), (rng.standard_normal((D, D)) / 3).astype(np.float32),
            np.array([3, 0, 7, 7, 10, 2], np.int32))


VMAP = {"in_axes": [None, None, 0], "size": 3}
