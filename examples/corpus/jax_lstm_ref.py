"""jax.experimental.rnn.lstm_ref, 2 layers, bidirectional, ragged lengths, under an MSE.

jax.experimental.rnn.lstm_ref: JAX's reference LSTM (multi-layer, bidirectional, ragged
seq_lengths) under an MSE loss.

Source: jax/experimental/rnn.py (`lstm_ref`, `init_lstm_weight`'s layout via
`unpack_lstm_weights`), jax==0.10.2.
Edits: the loss (MSE of the outputs against targets) and the sizes (batch 2, length 5, input 3,
hidden 4, 2 layers, bidirectional) are ours; the packed weights are unpacked with JAX's own
`unpack_lstm_weights` outside the traced function, so lstm_ref is traced as written.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import rnn

B, T, IN, H, LAYERS, BIDI = 2, 5, 3, 4, 2, True
DIRS = 2 if BIDI else 1


def function(weights, x, h0, c0, seq_lengths, y):
    W_ih, W_hh, b_ih, b_hh = weights
    out, _, _ = rnn.lstm_ref(x, h0, c0, W_ih, W_hh, b_ih, b_hh, seq_lengths, input_size=IN,
                             hidden_size=H, num_layers=LAYERS, dropout=0.0, bidirectional=BIDI)
    return jnp.mean((out - y) ** 2)


def example_args():
    key = jax.random.PRNGKey(0)
    packed = rnn.init_lstm_weight(key, IN, H, LAYERS, BIDI)
    weights = rnn.unpack_lstm_weights(packed, IN, H, LAYERS, BIDI)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((B, T, IN)).astype(np.float32)
    h0 = rng.standard_normal((LAYERS * DIRS, B, H)).astype(np.float32)
    c0 = rng.standard_normal((LAYERS * DIRS, B, H)).astype(np.float32)
    seq_lengths = np.array([T, 3], np.int32)
    y = rng.standard_normal((B, T, DIRS * H)).astype(np.float32)
    return weights, x, h0, c0, seq_lengths, y
