"""stax: the CNN of JAX's differentially-private SGD example (Conv, MaxPool, Dense).

jax.example_libraries.stax: the convolutional classifier of JAX's
examples/differentially_private_sgd.py (Conv 8x8 stride 2 SAME, Relu, MaxPool, Conv 4x4 stride 2,
Relu, MaxPool, Flatten, Dense(32), Relu, Dense(10)) with its softmax cross-entropy loss.

Source: JAX's stax layers (jax/example_libraries/stax.py, jax==0.10.2); the architecture is
the one examples/differentially_private_sgd.py builds.
Edits: 28x28 -> 16x16 images and 16 -> 4 channels; the loss (logits, stax.logsoftmax, the
example's `-jnp.mean(jnp.sum(logits * targets, axis=1))`) over a batch of 2.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.example_libraries import stax

init_fun, predict = stax.serial(
    stax.Conv(4, (8, 8), padding="SAME", strides=(2, 2)), stax.Relu, stax.MaxPool((2, 2), (1, 1)),
    stax.Conv(8, (4, 4), padding="VALID", strides=(2, 2)), stax.Relu, stax.MaxPool((2, 2), (1, 1)),
    stax.Flatten, stax.Dense(32), stax.Relu, stax.Dense(10))


def function(params, images, targets):
    logits = stax.logsoftmax(predict(params, images))
    return -jnp.mean(jnp.sum(logits * targets, axis=1))


def example_args():
    _, params = init_fun(jax.random.PRNGKey(0), (-1, 16, 16, 1))
    rng = np.random.default_rng(0)
    images = rng.standard_normal((2, 16, 16, 1)).astype(np.float32)
    targets = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 2)]
    return params, images, targets
