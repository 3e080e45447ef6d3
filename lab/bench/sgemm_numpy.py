# sgemm through NumPy's OpenBLAS (the same libopenblas.so.0 tandem links): min wall and min
# process-CPU seconds of 5 runs of an N x N x N f32 product, as GFLOP/s, for the LSTM section's context.
#   OPENBLAS_NUM_THREADS=1 /usr/bin/python3 lab/bench/sgemm_numpy.py
import time, sys, numpy as np
for n in (512, 1024, 2048):
    a = np.random.rand(n, n).astype(np.float32); b = np.random.rand(n, n).astype(np.float32)
    a @ b
    w, c = [], []
    for _ in range(5):
        c0, t0 = time.process_time(), time.perf_counter(); a @ b
        w.append(time.perf_counter() - t0); c.append(time.process_time() - c0)
    f = 2.0 * n**3
    print(f"N={n}: {f / min(w) / 1e9:.1f} GFLOP/s wall, {f / min(c) / 1e9:.1f} per cpu-second")
