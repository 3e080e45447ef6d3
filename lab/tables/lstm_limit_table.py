#!/usr/bin/env python3
"""The CPU LSTM against the machine's limit on its own GEMMs: reads the rounds
lab/bench/lstm_interleaved_run.sh wrote (r<R>_{kernel,primitive,gemms}_<threads>.json) and
prints, per shape, mode and thread setting, the time of the kernel's GEMMs alone (the limit:
`lstm_cpu_bench --path gemms`, the faster of its two ways of running the step products in
each round), the kernel's and the primitive path's times, and each as a fraction of the limit
(limit time / its time, 100 % = nothing but the GEMMs). The fraction is computed per round,
since the tools ran back to back in it, and reported as the median with its min–max; the goal
column reads the kernel's median against 90 %. Where the rounds also timed the kernel with its
all-steps products on the BLAS (SGEMM_AB=1: r<R>_kernel-blas_<threads>.json), a column gives
that time and the speed-up of oneDNN's sgemm over it (per-round median). Where they timed the
gate loops alone (lstm_cpu_bench --path gates: r<R>_gates_<threads>.json), two columns give
that time and the kernel as a fraction of GEMMs + gate loops: what is left beyond 100 % of it
is the kernel's copies and thread hand-offs.

    lab/tables/lstm_limit_table.py FOLDER ROUND [ROUND ...]
"""
import os
import statistics
import sys

from bad_input import refuse
from lstm_interleaved_table import key, rows

GOAL = 0.90
THREADS = ("1", "default")


def load(folder, tool, threads, rounds, optional=False):
    """{(shape, mode): {round: min_s}}; for the GEMMs, the faster way in each round (and which)."""
    out, way = {}, {}
    for r in rounds:
        path = os.path.join(folder, f"r{r}_{tool}_{threads}.json")
        if not os.path.isfile(path):
            if optional:
                return {}, {}
            refuse(f"{path} is missing", "run lab/bench/lstm_interleaved_run.sh (it times the GEMMs alone "
                   f"in every round) into {folder}")
        for row in rows(path, strict=True):
            k, t = key(row), row["min_s"]
            if t < out.setdefault(k, {}).get(r, float("inf")):
                out[k][r] = t
                way.setdefault(k, {})[r] = row.get("step_gemm", "")
    return out, way


def fraction_text(limit, ours):
    """Median (min–max) over the rounds of limit / ours, in percent."""
    f = [limit[r] / ours[r] for r in limit if r in ours]
    return statistics.median(f), f"{100 * statistics.median(f):.1f} % ({100 * min(f):.0f}–{100 * max(f):.0f})"


def table_rows(folder, rounds):
    for th in THREADS:
        limit, way = load(folder, "gemms", th, rounds)
        kernel, _ = load(folder, "kernel", th, rounds)
        prim, _ = load(folder, "primitive", th, rounds)
        blas, _ = load(folder, "kernel-blas", th, rounds, optional=True)
        gates, _ = load(folder, "gates", th, rounds, optional=True)
        for k in sorted(k for k in limit if k in kernel):
            med, kernel_text = fraction_text(limit[k], kernel[k])
            prim_text = fraction_text(limit[k], prim[k])[1] if k in prim else "–"
            ways = sorted(set(way[k].values()))
            gain = "–"
            if k in blas:
                g = statistics.median(blas[k][r] / kernel[k][r] for r in blas[k] if r in kernel[k])
                gain = f"{min(blas[k].values()):.4f} ({g:.2f}×)"
            both = "| – | –"
            if k in gates:  # the GEMMs and the gate loops alone, added per round: the kernel less its glue
                summed = {r: limit[k][r] + gates[k][r] for r in limit[k] if r in gates[k]}
                both = f"| {min(gates[k].values()):.4f} | {fraction_text(summed, kernel[k])[1]}"
            yield (f"| {k[0]} | {k[1]} | {1 if th == '1' else 2} | {min(limit[k].values()):.4f} ({'/'.join(ways)}) "
                   f"| {min(kernel[k].values()):.4f} | {kernel_text} "
                   f"| {min(prim[k].values()) if k in prim else float('nan'):.4f} | {prim_text} "
                   f"| {gain} {both} | {'met' if med >= GOAL else 'not met'} |")


def main():
    if len(sys.argv) < 3:
        refuse("no FOLDER and ROUNDs", "lab/tables/lstm_limit_table.py FOLDER ROUND [ROUND ...]")
    out = list(table_rows(sys.argv[1], sys.argv[2:]))
    if not out:
        refuse("no shape has both GEMM-limit and kernel rows in these rounds", "run the rounds with the same FILTER")
    print("| shape | mode | threads | GEMMs alone s (step products) | kernel s | kernel % of limit "
          "| primitive s | primitive % of limit | kernel on OpenBLAS sgemm s (oneDNN's speed-up) "
          "| gate loops alone s | kernel % of GEMMs + gate loops | kernel ≥ 90 % |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    print("\n".join(out))


if __name__ == "__main__":
    main()
