"""jax.nn.one_hot(tokens) @ E embedding, log_softmax loss, under dots_saveable.

A gather-free embedding lookup, jax.nn.one_hot(tokens) @ E, feeding a tanh layer and
jax.nn.log_softmax, differentiated under jax.checkpoint with dots_saveable: the lookup of
TPU-style language models, whose one_hot depends only on integer tokens.

Source: jax/_src/nn/functions.py (`one_hot`, `log_softmax`), jax==0.10.2, called as released;
jax.checkpoint and checkpoint_policies.dots_saveable are JAX's.
Edits: the model's wiring, the loss and the sizes (10 tokens, vocabulary 9, width 6) are ours.
"""
import jax
import jax.numpy as jnp
import numpy as np


def _loss(emb, w, tokens, targets):
    x = jax.nn.one_hot(tokens, emb.shape[0]) @ emb
    logp = jax.nn.log_softmax(jnp.tanh(x) @ w)
    return -jnp.mean(jnp.sum(logp * jax.nn.one_hot(targets, w.shape[1]), axis=-1))


function = jax.checkpoint(_loss, policy=jax.checkpoint_policies.dots_saveable)


def example_args():
    rng = np.random.default_rng(15)
    return ((rng.standard_normal((9, 6)) / 3).astype(np.float32), (rng.standard_normal((6, 9)) / 3).astype(np.float32),
            rng.integers(0, 9, 10).astype(np.int32), rng.integers(0, 9, 10).astype(np.int32))


VMAP = {"in_axes": [None, None, 0, 0], "size": 3}
