"""optax.losses.softmax_cross_entropy_with_integer_labels on a linear classifier.

optax.losses.softmax_cross_entropy_with_integer_labels on a linear classifier's logits (the
integer-label cross-entropy of every language model: take_along_axis of the labels' logits
against a logsumexp).

Source: optax/losses/_classification.py, optax==0.2.8 (PyPI), called as released.
Edits: the linear classifier, the mean over the batch and the sizes (batch 8, 12 features,
5 classes) are ours.
"""
import jax.numpy as jnp
import numpy as np
import optax


def function(w, b, x, labels):
    logits = x @ w + b
    return jnp.mean(optax.losses.softmax_cross_entropy_with_integer_labels(logits, labels))


def example_args():
    rng = np.random.default_rng(2)
    w = (rng.standard_normal((12, 5)) / np.sqrt(12)).astype(np.float32)
    b = np.zeros(5, np.float32)
    x = rng.standard_normal((8, 12)).astype(np.float32)
    labels = rng.integers(0, 5, 8).astype(np.int32)
    return w, b, x, labels


VMAP = {"in_axes": [None, None, 0, 0], "size": 4}
