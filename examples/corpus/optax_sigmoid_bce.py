"""optax.losses.sigmoid_binary_cross_entropy on a tanh network's logits.

optax.losses.sigmoid_binary_cross_entropy (log_sigmoid of the logits and of their negation,
i.e. softplus: log1p, abs, max) on a two-layer tanh network's logits.

Source: optax/losses/_classification.py, optax==0.2.8 (PyPI), called as released.
Edits: the network, the mean and the sizes (batch 8, 6 features, 3 independent labels) are ours.
"""
import jax.numpy as jnp
import numpy as np
import optax


def function(w1, w2, x, labels):
    logits = jnp.tanh(x @ w1) @ w2
    return jnp.mean(optax.losses.sigmoid_binary_cross_entropy(logits, labels))


def example_args():
    rng = np.random.default_rng(3)
    w1 = (rng.standard_normal((6, 10)) / np.sqrt(6)).astype(np.float32)
    w2 = (rng.standard_normal((10, 3)) / np.sqrt(10)).astype(np.float32)
    x = rng.standard_normal((8, 6)).astype(np.float32)
    labels = rng.integers(0, 2, (8, 3)).astype(np.float32)
    return w1, w2, x, labels
