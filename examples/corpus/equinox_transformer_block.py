"""A pre-norm transformer block of equinox layers with a causal mask and token cross-entropy.

A pre-norm transformer block from equinox's layers: eqx.nn.Embedding, eqx.nn.LayerNorm,
eqx.nn.MultiheadAttention with a causal mask, eqx.nn.MLP (gelu), an integer-label cross-entropy:
a community transformer.

Source: equinox/nn/_attention.py, _embedding.py, _normalisation.py, _mlp.py, _linear.py,
equinox==0.13.8 (PyPI), called as released (equinox applies them per token with jax.vmap).
Edits: the block's wiring (residuals, the final projection), the loss and the sizes (8 tokens,
vocabulary 11, model 16, 2 heads, MLP width 32) are ours; the modules' arrays are the
function's arguments (eqx.partition / eqx.combine).
"""
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

L, V, D = 8, 11, 16
_keys = jax.random.split(jax.random.PRNGKey(2), 4)
_model = (eqx.nn.Embedding(V, D, key=_keys[0]), eqx.nn.LayerNorm(D),
          eqx.nn.MultiheadAttention(2, D, key=_keys[1]), eqx.nn.LayerNorm(D),
          eqx.nn.MLP(D, D, 32, 1, activation=jax.nn.gelu, key=_keys[2]),
          eqx.nn.Linear(D, V, key=_keys[3]))
_params, _static = eqx.partition(_model, eqx.is_array)


def function(params, tokens, targets):
    embed, ln1, attn, ln2, mlp, out = eqx.combine(params, _static)
    x = jax.vmap(embed)(tokens)
    h = jax.vmap(ln1)(x)
    mask = jnp.tril(jnp.ones((L, L), bool))
    x = x + attn(h, h, h, mask=mask)
    x = x + jax.vmap(mlp)(jax.vmap(ln2)(x))
    logits = jax.vmap(out)(x)
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, targets[:, None], axis=-1))


def example_args():
    rng = np.random.default_rng(10)
    return (_params, rng.integers(0, V, L).astype(np.int32), rng.integers(0, V, L).astype(np.int32))
