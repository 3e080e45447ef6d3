#!/usr/bin/env python3
"""The table of lab/bench/lstm_interleaved_run.sh OUT: per shape and mode, the minimum wall time
over the rounds of tandem's kernel, its primitive path and PyTorch, at 1 thread and at default
threads; tandem / PyTorch as a speed ratio (PyTorch time / tandem time); GFLOP/s counting
useful work only (forward+backward = 3 x forward, the records' flop formula); the kernel's
share of the best sgemm rate of the same rounds; and the old path (lstm_bwd re-running the
forward) with the 4 x forward GFLOP/s the records used to claim for it.

    lab/tables/lstm_interleaved_table.py OUT > table.md
"""
import glob
import json
import os
import re
import sys

from bad_input import load_json, refuse


def rows(path, strict=False):
    """A results file's rows; a garbled one is skipped with a note (a round still running, or cut
    off), or refused where `strict` (rounds named on the command line)."""
    if strict:
        return load_json(path, "results", "rerun that round (lab/bench/lstm_interleaved_run.sh OUT 1 "
                         "with FIRST=its number), or leave it out")["results"]
    try:
        return json.load(open(path))["results"]
    except (json.JSONDecodeError, KeyError):  # a round still running, or cut off: skipped
        print(f"note: {path} is incomplete, skipped", file=sys.stderr)
        return []


def key(r):
    bidi = " bidi" if r["bidirectional"] else ""
    return (f'{r["label"]} B{r["batch"]} T{r["seq"]} H{r["hidden"]}'
            f'{" L" + str(r["layers"]) if r["layers"] > 1 else ""}{bidi}', r["mode"])


def minimum(out, tool, threads, field="min_s", rounds=None):
    """Per (shape, mode): the minimum of `field` over the rounds (all, or those listed)."""
    best, flops = {}, {}
    paths = (sorted(glob.glob(os.path.join(out, f"r*_{tool}_{threads}.json"))) if rounds is None
             else [os.path.join(out, f"r{r}_{tool}_{threads}.json") for r in rounds])
    for p in paths:
        for r in rows(p, strict=rounds is not None):
            k = key(r)
            best[k] = min(best.get(k, float("inf")), r[field])
            flops[k] = r["flops"]
    return best, flops


def sgemm(out, threads):
    rates = []
    for p in glob.glob(os.path.join(out, f"r*_sgemm_{threads}.txt")):
        for line in open(p):
            m = re.match(r"\|\s*\S+\s*\|\s*(\d+)\s*\|\s*([\d.]+)", line)
            if m:
                rates.append(float(m.group(2)))
    return max(rates) if rates else float("nan")


def main():
    if len(sys.argv) != 2 or not glob.glob(os.path.join(sys.argv[1], "r*_kernel_*.json")):
        refuse(f"no r*_kernel_*.json in {' '.join(sys.argv[1:])}", "lab/tables/lstm_interleaved_table.py OUT, "
               "with OUT a folder lab/bench/lstm_interleaved_run.sh wrote")
    out = sys.argv[1]
    for threads in ("1", "default"):
        kern, flops = minimum(out, "kernel", threads)
        prim, _ = minimum(out, "primitive", threads)
        torch, _ = minimum(out, "torch", threads)
        peak = sgemm(out, threads)
        print(f"\n**{'1 thread' if threads == '1' else 'default threads'}** (best sgemm of the rounds: "
              f"{peak:.1f} GFLOP/s)\n")
        print("| shape | mode | tandem kernel s | tandem primitive s | PyTorch s | kernel / PyTorch | "
              "primitive / PyTorch | kernel GFLOP/s | % of sgemm | old (recompute) s | old GFLOP/s as recorded (4×) |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for k in sorted(kern, key=lambda k: (k[0], k[1] != "fwd")):
            if k[1] == "fwd+recompute+bwd":
                continue
            t, p, pt = kern[k], prim.get(k), torch.get(k)
            g = flops[k] / t / 1e9
            old = kern.get((k[0], "fwd+recompute+bwd")) if k[1] == "fwd+bwd" else None
            fmt = lambda v: f"{v:.4f}" if v else "–"
            ratio = lambda a: f"{pt / a:.2f}×" if a and pt else "–"
            old_g = f"{4 / 3 * flops[k] / old / 1e9:.1f}" if old else "–"
            print(f"| {k[0]} | {k[1]} | {fmt(t)} | {fmt(p)} | {fmt(pt)} | {ratio(t)} | {ratio(p)} | "
                  f"{g:.1f} | {100 * g / peak:.0f} % | {fmt(old)} | {old_g} |")
        if threads != "1":
            continue
        # One thread on a shared machine: process CPU time is what other jobs disturb least.
        kc, _ = minimum(out, "kernel", threads, "min_cpu_s")
        pc, _ = minimum(out, "primitive", threads, "min_cpu_s")
        tc, _ = minimum(out, "torch", threads, "min_cpu_s")
        print("\nThe same rounds by process CPU time (min CPU-seconds; GFLOP per CPU-second):\n")
        print("| shape | mode | tandem kernel | tandem primitive | PyTorch | kernel / PyTorch | primitive / PyTorch | "
              "old (recompute) | new / old |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for k in sorted(kc, key=lambda k: (k[0], k[1] != "fwd")):
            if k[1] == "fwd+recompute+bwd":
                continue
            old = kc.get((k[0], "fwd+recompute+bwd")) if k[1] == "fwd+bwd" else None
            gf = lambda v: f"{flops[k] / v / 1e9:.1f}" if v else "–"
            print(f"| {k[0]} | {k[1]} | {kc[k]:.4f} s ({gf(kc[k])}) | {pc[k]:.4f} s ({gf(pc.get(k))}) | "
                  f"{tc[k]:.4f} s ({gf(tc.get(k))}) | {tc[k] / kc[k]:.2f}× | {tc[k] / pc[k]:.2f}× | "
                  f"{f'{old:.4f} s' if old else '–'} | {f'{old / kc[k]:.2f}× faster' if old else '–'} |")


if __name__ == "__main__":
    main()
