"""Nested jax.checkpoint, as the JAX docs' gradient-checkpointing guide nests them: each layer
checkpointed under dots_saveable inside a whole-network checkpoint. Under a top-level policy
JAX applies the OUTER policy inside the inner checkpoints too ("outer policy wins"), so
nothing_saveable at the top saves no dot although each layer asks to save its dots."""
import jax
import jax.numpy as jnp
import numpy as np


def layer(W, x):
    return jnp.sin(jnp.dot(W, x))


def function(W1, W2, W3, x):
    g = jax.checkpoint(layer, policy=jax.checkpoint_policies.dots_saveable)
    net = jax.checkpoint(lambda x: g(W3, g(W2, g(W1, x))), policy=jax.checkpoint_policies.nothing_saveable)
    return jnp.sum(net(x) ** 2)


def example_args():
    rng = np.random.default_rng(0)
    W = lambda: (rng.standard_normal((6, 6)) / 3).astype(np.float32)
    return W(), W(), W(), rng.standard_normal((6, 4)).astype(np.float32)
