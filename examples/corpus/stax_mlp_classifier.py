"""stax: the MNIST classifier of JAX's mnist_classifier example and its loss.

jax.example_libraries.stax: the MNIST classifier of JAX's examples/mnist_classifier.py
(Dense(1024), Relu, Dense(1024), Relu, Dense(10), LogSoftmax) and its loss.

Source: JAX's own stax layers, installed with jax (jax/example_libraries/stax.py, jax==0.10.2);
the model is the one JAX's examples/mnist_classifier.py builds.
Edits: widths 1024 -> 32 and inputs 784 -> 20 so it runs in seconds; the loss (the example's
`-jnp.mean(jnp.sum(preds * targets, axis=1))`) is called with stax's apply_fun; a batch of 8
random examples with one-hot targets.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.example_libraries import stax

init_fun, predict = stax.serial(stax.Dense(32), stax.Relu, stax.Dense(32), stax.Relu, stax.Dense(10), stax.LogSoftmax)


def function(params, inputs, targets):
    preds = predict(params, inputs)
    return -jnp.mean(jnp.sum(preds * targets, axis=1))


def example_args():
    _, params = init_fun(jax.random.PRNGKey(0), (-1, 20))
    rng = np.random.default_rng(0)
    inputs = rng.standard_normal((8, 20)).astype(np.float32)
    targets = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 8)]
    return params, inputs, targets


VMAP = {"in_axes": [None, 0, 0], "size": 4}
