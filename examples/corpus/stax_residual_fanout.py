"""stax: a residual block of FanOut, parallel, Identity and FanInSum.

jax.example_libraries.stax combinators: a residual block built with FanOut, parallel,
Identity and FanInSum (the way stax's ResNet example wires its identity shortcut), with Elu
and LeakyRelu activations, under an MSE loss.

Source: JAX's stax layers and combinators (jax/example_libraries/stax.py, jax==0.10.2); the
shortcut wiring follows JAX's examples/resnet50.py (IdentityBlock: FanOut(2), parallel(main,
Identity), FanInSum).
Edits: the dense main path (instead of convolutions), the loss and the sizes (batch 8,
width 12) are ours.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.example_libraries import stax

_main = stax.serial(stax.Dense(12), stax.Elu, stax.Dense(12))
init_fun, predict = stax.serial(
    stax.Dense(12), stax.FanOut(2), stax.parallel(_main, stax.Identity), stax.FanInSum,
    stax.LeakyRelu, stax.Dense(2))


def function(params, x, y):
    return jnp.mean((predict(params, x) - y) ** 2)


def example_args():
    _, params = init_fun(jax.random.PRNGKey(4), (-1, 7))
    rng = np.random.default_rng(14)
    return params, rng.standard_normal((8, 7)).astype(np.float32), rng.standard_normal((8, 2)).astype(np.float32)
