"""optax.smooth_labels with softmax_cross_entropy, plus kl_divergence.

optax's label smoothing with softmax_cross_entropy, plus kl_divergence against a target
distribution (log_softmax, where, log).

Source: optax/losses/_smoothing.py (`smooth_labels`) and _classification.py
(`softmax_cross_entropy`, `kl_divergence`), optax==0.2.8 (PyPI), called as released.
Edits: the linear classifier, the sum of the two means, alpha = 0.1 and the sizes (batch 8,
7 features, 6 classes) are ours.
"""
import jax
import jax.numpy as jnp
import numpy as np
import optax


def function(w, x, onehot, target_probs):
    logits = x @ w
    ce = optax.losses.softmax_cross_entropy(logits, optax.smooth_labels(onehot, 0.1))
    kl = optax.losses.kl_divergence(jax.nn.log_softmax(logits), target_probs)
    return jnp.mean(ce) + jnp.mean(kl)


def example_args():
    rng = np.random.default_rng(7)
    w = (rng.standard_normal((7, 6)) / np.sqrt(7)).astype(np.float32)
    x = rng.standard_normal((8, 7)).astype(np.float32)
    onehot = np.eye(6, dtype=np.float32)[rng.integers(0, 6, 8)]
    t = rng.random((8, 6)).astype(np.float32)
    t[0, 0] = 0.0  # kl_divergence's where(targets == 0, 0, log(targets)) branch
    return w, x, onehot, t / t.sum(-1, keepdims=True)
