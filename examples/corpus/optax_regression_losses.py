"""optax's huber_loss, log_cosh and l2_loss on a linear model.

optax's regression losses on a linear model: huber_loss, log_cosh and l2_loss summed.

Source: optax/losses/_regression.py, optax==0.2.8 (PyPI), called as released (huber_loss:
abs, where; log_cosh: logaddexp; l2_loss: squared error / 2).
Edits: the linear model, the sum of the three means and the sizes (batch 8, 5 features,
2 targets) are ours.
"""
import jax.numpy as jnp
import numpy as np
import optax


def function(w, x, y):
    pred = x @ w
    return (jnp.mean(optax.losses.huber_loss(pred, y, delta=0.5))
            + jnp.mean(optax.losses.log_cosh(pred, y))
            + jnp.mean(optax.losses.l2_loss(pred, y)))


def example_args():
    rng = np.random.default_rng(5)
    return (rng.standard_normal((5, 2)).astype(np.float32), rng.standard_normal((8, 5)).astype(np.float32),
            rng.standard_normal((8, 2)).astype(np.float32))


VMAP = {"in_axes": [None, 0, 0], "size": 3}
