"""optax.losses.sigmoid_focal_loss on a linear layer's logits.

optax.losses.sigmoid_focal_loss (log_sigmoid, softplus, log1p, exp of gamma times a log,
where) on a linear layer's logits.

Source: optax/losses/_classification.py, optax==0.2.8 (PyPI), called as released.
Edits: the linear layer, the mean, alpha = 0.25 and gamma = 2 (the paper's values), the sizes
(batch 8, 6 features, 4 labels) are ours.
"""
import jax.numpy as jnp
import numpy as np
import optax


def function(w, x, labels):
    return jnp.mean(optax.losses.sigmoid_focal_loss(x @ w, labels, alpha=0.25, gamma=2.0))


def example_args():
    rng = np.random.default_rng(6)
    return ((rng.standard_normal((6, 4)) / 2).astype(np.float32), rng.standard_normal((8, 6)).astype(np.float32),
            rng.integers(0, 2, (8, 4)).astype(np.float32))
