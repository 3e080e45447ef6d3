"""A loop whose trip count the data decides, as JAX users write one: Newton's iteration for
sqrt(a) under lax.while_loop until the residual is small, then a lax.fori_loop whose bound is
read from the data (JAX writes it as a while too). JAX has no reverse mode for such loops, and
neither has tandem: the forward and vmap cases are checked, the vjp cases are reported skipped
with JAX's reason (use lax.scan, or fori_loop with Python-int bounds):

    tools/import/export_jax_program.py examples/while_newton.py --out /tmp/newton
    tandem check --program /tmp/newton
"""
import jax
import jax.numpy as jnp
from jax import lax


def newton_sqrt(a, x0):
    def cond(c):
        x, i = c
        d = x * x - a
        return jnp.max(jnp.maximum(d, -d)) > 1e-4

    def body(c):
        x, i = c
        return (x + a / x) * 0.5, i + 1

    x, steps = lax.while_loop(cond, body, (x0, jnp.int32(0)))
    return x, steps


def function(w, a, x0):
    r, steps = newton_sqrt(a, x0)
    n = jnp.sum(a).astype(jnp.int32)
    s = lax.fori_loop(0, n, lambda i, s: jnp.tanh(s * w) + r, jnp.zeros_like(r))
    return jnp.sum(s * w) + steps.astype(jnp.float32)


def example_args():
    w = jax.random.normal(jax.random.PRNGKey(0), (6,), jnp.float32)
    a = jax.random.uniform(jax.random.PRNGKey(1), (6,), jnp.float32, 0.5, 4.0)
    x0 = jnp.full((6,), 2.0, jnp.float32)
    return w, a, x0


VMAP = {"in_axes": [None, 0, 0], "size": 4}
