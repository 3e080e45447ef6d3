"""jax.experimental.rnn.lstm_ref as a user calls it: only the per-step outputs y feed the loss,
so the final carries (h_n, c_n, gathered at each sequence's length) are discarded."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import rnn

B, T, I, H, L = 3, 5, 4, 6, 1


def function(x, h0, c0, w):
    W_ih, W_hh, b_ih, b_hh = rnn.unpack_lstm_weights(w, I, H, L, False)
    lens = jnp.array([5, 3, 2], jnp.int32)
    y, _, _ = rnn.lstm_ref(x, h0, c0, W_ih, W_hh, b_ih, b_hh, lens, I, H, L, 0.0, False)
    return jnp.sum(y * y)


def example_args():
    rng = np.random.default_rng(0)
    n = rnn.get_num_params_in_lstm(I, H, L, False)
    f = lambda *s: (0.3 * rng.standard_normal(s)).astype(np.float32)
    return f(B, T, I), f(L, B, H), f(L, B, H), f(n)
