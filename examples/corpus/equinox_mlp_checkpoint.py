"""equinox.nn.MLP under jax.checkpoint with dots_with_no_batch_dims_saveable.

equinox.nn.MLP (relu hidden layers) with jax.checkpoint around the loss under
dots_with_no_batch_dims_saveable, as JAX's gradient-checkpointing guide recommends for
FLOP-bound layers.

Source: equinox/nn/_mlp.py, _linear.py, equinox==0.13.8 (PyPI), called as released (applied
per example with jax.vmap, as equinox documents); jax.checkpoint and its policy are JAX's.
Edits: the MSE, the checkpoint wrapper and the sizes (batch 8, 5 -> 16 -> 16 -> 3) are ours.
"""
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

_mlp = eqx.nn.MLP(5, 3, 16, 2, key=jax.random.PRNGKey(3))
_params, _static = eqx.partition(_mlp, eqx.is_array)


def _loss(params, x, y):
    mlp = eqx.combine(params, _static)
    return jnp.mean((jax.vmap(mlp)(x) - y) ** 2)


function = jax.checkpoint(_loss, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)


def example_args():
    rng = np.random.default_rng(11)
    return _params, rng.standard_normal((8, 5)).astype(np.float32), rng.standard_normal((8, 3)).astype(np.float32)
