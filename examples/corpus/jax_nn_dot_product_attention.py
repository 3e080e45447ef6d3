"""jax.nn.dot_product_attention (causal, XLA implementation) in an attention layer.

jax.nn.dot_product_attention (JAX's own XLA implementation: scaled logits, causal mask,
softmax) in a single-head attention layer with an MSE loss.

Source: jax/_src/nn/functions.py (`dot_product_attention`, implementation='xla'),
jax==0.10.2, called as released.
Edits: the q/k/v/o projections, the MSE and the sizes (batch 2, 6 tokens, 1 head, width 8)
are ours.
"""
import jax
import jax.numpy as jnp
import numpy as np


def function(wq, wk, wv, wo, x, y):
    q, k, v = (x @ w for w in (wq, wk, wv))
    shape = x.shape[:2] + (1, x.shape[-1])  # [batch, tokens, heads, width]
    o = jax.nn.dot_product_attention(q.reshape(shape), k.reshape(shape), v.reshape(shape),
                                     is_causal=True, implementation="xla")
    return jnp.mean((o.reshape(x.shape) @ wo - y) ** 2)


def example_args():
    rng = np.random.default_rng(12)
    ws = [(rng.standard_normal((8, 8)) / np.sqrt(8)).astype(np.float32) for _ in range(4)]
    return (*ws, rng.standard_normal((2, 6, 8)).astype(np.float32), rng.standard_normal((2, 6, 8)).astype(np.float32))
