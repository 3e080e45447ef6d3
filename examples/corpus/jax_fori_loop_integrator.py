"""lax.fori_loop with static bounds (a scan with an i32 counter): an Euler integrator.

lax.fori_loop with static bounds (lowered by JAX to a scan with an i32 counter carry): an
explicit Euler integration of a damped oscillator whose stiffness and damping are fitted.

Source: lax.fori_loop is JAX's (jax/_src/lax/control_flow/loops.py, jax==0.10.2); the
integrator is ours, written the way JAX's docs show fori_loop (body(i, carry) -> carry), so
this entry is JAX's lowering rather than someone else's model.
Edits: not applicable (our own program).
"""
import jax.numpy as jnp
import numpy as np
from jax import lax


def function(params, state0, target):
    k, c = params[0], params[1]

    def body(i, s):
        x, v = s[0], s[1]
        a = -k * x - c * v
        return jnp.stack([x + 0.05 * v, v + 0.05 * a])
    return jnp.sum((lax.fori_loop(0, 20, body, state0) - target) ** 2)


def example_args():
    return np.array([2.0, 0.3], np.float32), np.array([1.0, 0.0], np.float32), np.array([0.2, -0.5], np.float32)
