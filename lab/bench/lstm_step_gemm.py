#!/usr/bin/env python3
"""Where the LSTM's time goes against the sgemm limit: the GEMMs of one H = 512, B = 64, T = 25
layer timed alone through NumPy's BLAS (the same libopenblas.so.0 tandem links), interleaved
in one process, as GFLOP per CPU-second (min of --reps): the forward's all-steps input
projection, its per-step recurrent product h·W_hhᵀ, the backward's per-step da·W_hh, and an
N³ sgemm for the limit. The per-step products are thin (M = batch), and every call re-packs
all of W_hh. Each per-step product is also timed in the other layouts a kernel could use:
W_hh pre-transposed once per sequence (so BLAS packs a non-transposed operand), and the
transposed formulation gatesᵀ = W_hh · hᵀ (W_hh then the row operand BLAS packs in blocks).
Run it single-threaded: OPENBLAS_NUM_THREADS=1 lab/bench/lstm_step_gemm.py
"""
import argparse
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--seq", type=int, default=25)
    a = ap.parse_args()
    B, H, T = a.batch, a.hidden, a.seq
    r = np.random.default_rng(0)
    f32 = lambda *s: r.random(s, dtype=np.float32)
    w_hh, h, da, x, w_ih, big = f32(4 * H, H), f32(B, H), f32(B, 4 * H), f32(B * T, H), f32(4 * H, H), f32(2048, 2048)
    w_hh_t = np.ascontiguousarray(w_hh.T)  # [H, 4H]: W_hh transposed once per sequence
    h_t, da_t = np.ascontiguousarray(h.T), np.ascontiguousarray(da.T)  # [H, B], [4H, B]
    cases = {  # name: (body, flops per call, calls per timing)
        "projection [B*T,H]x[H,4H]": (lambda: x @ w_ih.T, 2.0 * B * T * H * 4 * H, 1),
        "fwd step [B,H]x[H,4H] (x T)": (lambda: h @ w_hh.T, 2.0 * B * H * 4 * H, T),
        "fwd step, W_hh pre-transposed h x W_hh^T[H,4H] (x T)": (lambda: h @ w_hh_t, 2.0 * B * H * 4 * H, T),
        "fwd step transposed W_hh x h^T -> [4H,B] (x T)": (lambda: w_hh @ h_t, 2.0 * B * H * 4 * H, T),
        "bwd step [B,4H]x[4H,H] (x T)": (lambda: da @ w_hh, 2.0 * B * H * 4 * H, T),
        "bwd step, W_hh^T stored da x (W_hh^T)^T (x T)": (lambda: da @ w_hh_t.T, 2.0 * B * H * 4 * H, T),
        "bwd step transposed W_hh^T x da^T -> [H,B] (x T)": (lambda: w_hh.T @ da_t, 2.0 * B * H * 4 * H, T),
        "sgemm 2048^3": (lambda: big @ big, 2.0 * 2048**3, 1),
    }
    best = {k: float("inf") for k in cases}
    for body, _, n in cases.values():
        body()
    for _ in range(a.reps):  # interleaved: each round times every case once
        for k, (body, _, n) in cases.items():
            c0 = time.process_time()
            for _ in range(n):
                body()
            best[k] = min(best[k], time.process_time() - c0)
    for k, (_, flops, n) in cases.items():
        print(f"{k}: {flops * n / best[k] / 1e9:.1f} GFLOP per cpu-second")


if __name__ == "__main__":
    main()
