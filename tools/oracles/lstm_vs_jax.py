#!/usr/bin/env python3
"""`tandem lstm` against JAX itself: jax.experimental.rnn's packed weights unpacked by its own
`unpack_lstm_weights`, run through its own `lstm_ref` (the reference its cuDNN `lstm` is tested
against), gradients by `jax.vjp` of the same function, on a grid of configurations (layers,
directions, ragged lengths, I != H, B = 1, T = 1). Every output and gradient is compared.

The tolerance comes from the data: JAX's own f32 run and tandem's f32 run are both measured
against JAX in f64 (jax_enable_x64) on the same inputs, and tandem passes an array when its
error is at most 4x JAX's f32 error, or within 16 f32 ulps of the array's largest magnitude
when JAX's own error is smaller than that (both are f32 summations in different orders).

    tools/oracles/lstm_vs_jax.py TANDEM_BINARY WORKDIR
Exits 0 when every array of every configuration agrees, 1 when one does not, 77 when JAX is
not installed (the PyPI `jax` package; CPU is enough).
"""
import os
import subprocess
import sys
import zlib

try:  # numpy too: a Python without it is a skip (77) naming what is missing, not a traceback
    import numpy as np
    import jax
    import jax.numpy as jnp
    from jax.experimental import rnn
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from jax_common import headroom_bound  # the oracles' bound
except ImportError as missing:
    print(f"skip: {missing} (for {sys.executable})", file=sys.stderr)
    sys.exit(77)

jax.config.update("jax_enable_x64", True)

# (name, B, T, I, H, num_layers, bidirectional, seq_lengths or None for all T)
CONFIGS = [
    ("uni_1layer_full", 4, 7, 5, 8, 1, False, None),
    ("uni_2layer_ragged", 5, 9, 6, 4, 2, False, [9, 1, 4, 9, 6]),
    ("bidi_1layer_ragged", 3, 6, 4, 5, 1, True, [6, 2, 5]),
    ("bidi_3layer_ragged", 4, 8, 3, 7, 3, True, [3, 8, 1, 6]),
    ("batch1_step1", 1, 1, 2, 3, 2, True, [1]),
    ("uni_wide", 6, 20, 16, 64, 1, False, [20, 19, 1, 10, 13, 20]),
    ("bidi_wide_2layer", 3, 12, 32, 24, 2, True, [12, 5, 11]),
]


def jax_lstm(x, h0, c0, w, lens, I, H, L, bidi):
    """y, h_n, c_n of jax.experimental.rnn.lstm_ref on packed weights w."""
    W_ih, W_hh, b_ih, b_hh = rnn.unpack_lstm_weights(w, I, H, L, bidi)
    return rnn.lstm_ref(x, h0, c0, W_ih, W_hh, b_ih, b_hh, lens, I, H, L, 0.0, bidi)


def jax_all(arrays, lens, I, H, L, bidi, dtype):
    """Outputs and gradients (dx, dh0, dc0, dw) of JAX at dtype, as float64 numpy arrays."""
    x, h0, c0, w, dy, dhn, dcn = (jnp.asarray(a, dtype) for a in arrays)
    f = lambda x, h0, c0, w: jax_lstm(x, h0, c0, w, jnp.asarray(lens, jnp.int32), I, H, L, bidi)
    (y, hn, cn), vjp = jax.vjp(f, x, h0, c0, w)
    dx, dh0, dc0, dw = vjp((dy, dhn, dcn))
    got = {"y": y, "h_n": hn, "c_n": cn, "dx": dx, "dh0": dh0, "dc0": dc0, "dw": dw}
    return {k: np.asarray(v, np.float64) for k, v in got.items()}


def run_config(tandem, work, name, B, T, I, H, L, bidi, lens):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    D = 2 if bidi else 1
    S = L * D
    lens = lens or [T] * B
    P = rnn.get_num_params_in_lstm(I, H, L, bidi)
    k = H ** -0.5
    arrays = [rng.standard_normal((B, T, I)).astype(np.float32),
              rng.standard_normal((S, B, H)).astype(np.float32) * 0.5,
              rng.standard_normal((S, B, H)).astype(np.float32) * 0.5,
              rng.uniform(-k, k, P).astype(np.float32),
              rng.standard_normal((B, T, D * H)).astype(np.float32),
              rng.standard_normal((S, B, H)).astype(np.float32),
              rng.standard_normal((S, B, H)).astype(np.float32)]
    inp, out = os.path.join(work, name, "in"), os.path.join(work, name, "out")
    os.makedirs(inp, exist_ok=True)
    for file, a in zip(("x", "h0", "c0", "w", "dy", "dh_n", "dc_n"), arrays):
        np.save(os.path.join(inp, file + ".npy"), a)
    np.save(os.path.join(inp, "seq_lengths.npy"), np.array(lens, dtype=np.int32))
    subprocess.run([tandem, "lstm", "--in", inp, "--out", out, "--hidden-size", str(H),
                    "--num-layers", str(L), "--bidirectional", str(int(bidi)), "-q"], check=True)

    exact = jax_all(arrays, lens, I, H, L, bidi, jnp.float64)
    jax32 = jax_all(arrays, lens, I, H, L, bidi, jnp.float32)
    bad = 0
    for key, want in exact.items():
        got = np.load(os.path.join(out, key + ".npy")).astype(np.float64)
        if got.shape != want.shape:
            print(f"{name} {key}: shape {got.shape} != JAX's {want.shape}")
            bad += 1
            continue
        err = float(np.abs(got - want).max())
        jax_err = float(np.abs(jax32[key] - want).max())
        bound = headroom_bound(jax_err, "f32", max(float(np.abs(want).max()), 1e-30))
        ok = err <= bound
        bad += not ok
        print(f"{name} {key}: |tandem - jax64| = {err:.3g}, |jax32 - jax64| = {jax_err:.3g}, "
              f"bound {bound:.3g}{'' if ok else '  FAIL'}")
    return bad


def main():
    tandem, work = sys.argv[1], sys.argv[2]
    bad = sum(run_config(tandem, work, *c) for c in CONFIGS)
    print(f"{len(CONFIGS)} configurations, {bad} array(s) outside the bound")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
