"""optax.losses.ctc_loss on a linear layer's per-frame logits.

optax.losses.ctc_loss: connectionist temporal classification (log_softmax, one_hot, einsum,
pad, logaddexp inside a lax.scan over time) on a linear layer's per-frame logits.

Source: optax/losses/_classification.py (`ctc_loss`, `ctc_loss_with_forward_probs`),
optax==0.2.8 (PyPI), called as released.
Edits: the linear layer, the mean over sequences and the sizes (batch 2, 6 frames, 4 features,
5 classes with blank 0, labels of length 3 with padding) are ours.
"""
import jax.numpy as jnp
import numpy as np
import optax


def function(w, frames, frame_paddings, labels, label_paddings):
    logits = frames @ w
    return jnp.mean(optax.losses.ctc_loss(logits, frame_paddings, labels, label_paddings))


def example_args():
    rng = np.random.default_rng(4)
    w = (rng.standard_normal((4, 5)) / 2).astype(np.float32)
    frames = rng.standard_normal((2, 6, 4)).astype(np.float32)
    frame_paddings = np.array([[0] * 6, [0] * 5 + [1]], np.float32)
    labels = np.array([[1, 2, 2], [3, 1, 0]], np.int32)
    label_paddings = np.array([[0, 0, 0], [0, 0, 1]], np.float32)
    return w, frames, frame_paddings, labels, label_paddings
