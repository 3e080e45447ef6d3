"""A function using a primitive tandem lacks (jnp.cumprod's `cumprod`): the exporter writes it
under its JAX name and says so on stderr; `tandem check --program` then refuses the program
with exit 4, naming the equation, its source line here and the primitives tandem has.

    tools/import/export_jax_program.py examples/unsupported_primitive.py --out /tmp/unsupported
    tandem check --program /tmp/unsupported     # exit 4: unknown primitive 'cumprod'
"""
import jax.numpy as jnp
import numpy as np


def function(x):
    return jnp.sum(jnp.cumprod(jnp.sin(x), axis=0) ** 2)


def example_args():
    return (np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(4, 3),)
