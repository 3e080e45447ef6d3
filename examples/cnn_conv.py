"""A 2-layer CNN's loss, written as a JAX user writes it: the first layer NHWC/HWIO, the second
NCHW/OIHW (lax.conv_general_dilated's two common layouts), both stride 2 with SAME padding,
ReLU between, a squared error against targets. tandem checks the forward, the vjp under every
policy (each conv's cotangents are convs, dots_saveable saves the convs as JAX's does) and vmap:

    tools/import/export_jax_program.py examples/cnn_conv.py --out /tmp/cnn
    tandem check --program /tmp/cnn
"""
import jax
import jax.numpy as jnp
from jax import lax


def function(params, x, y):
    w1, w2 = params
    h = lax.conv_general_dilated(x, w1, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    h = jnp.maximum(h, 0.0)
    h = jnp.transpose(h, (0, 3, 1, 2))  # to NCHW
    o = lax.conv_general_dilated(h, w2, (2, 2), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW"))
    return jnp.sum((o - y) ** 2) / o.size


def example_args():
    k1, k2, k3, k4 = jax.random.split(jax.random.PRNGKey(0), 4)
    w1 = jax.random.normal(k1, (3, 3, 3, 8), jnp.float32) * 0.3
    w2 = jax.random.normal(k2, (4, 8, 3, 3), jnp.float32) * 0.2
    x = jax.random.normal(k3, (2, 9, 9, 3), jnp.float32)
    y = jax.random.normal(k4, (2, 4, 3, 3), jnp.float32)
    return (w1, w2), x, y


VMAP = {"in_axes": [None, 0, 0], "size": 3}
