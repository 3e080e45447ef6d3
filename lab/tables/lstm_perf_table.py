#!/usr/bin/env python3
"""Sets lstm_cpu_bench and torch_lstm_bench JSON results side by side as a Markdown table
(lab/README.md, "LSTM"): per shape and mode, GFLOP/s of each run and tandem/torch.

    lab/tables/lstm_perf_table.py [--cpu] tandem_1t.json torch_1t.json [tandem_all.json torch_all.json ...]

GFLOP/s from the min wall time, or with --cpu GFLOP per process-CPU-second.

Files are given in (tandem, torch) pairs; each pair becomes two columns and a ratio.
"""
import sys

from bad_input import load_json, refuse


def key(r):
    return (r["label"], r["batch"], r["seq"], r["input"], r["hidden"], r["layers"], r["bidirectional"], r["mode"])


METRIC = "gflops"  # or gflops_cpu with --cpu


def main(paths):
    global METRIC
    if paths and paths[0] == "--cpu":
        METRIC, paths = "gflops_cpu", paths[1:]
    if len(paths) % 2:
        refuse("give (tandem, torch) JSON files in pairs", "lab/tables/lstm_perf_table.py t1.json p1.json")
    runs = [load_json(p, "results", "lstm_cpu_bench or torch_lstm_bench.py JSON of a finished run") for p in paths]
    order, by = [], []
    for run in runs:
        m = {}
        for r in run["results"]:
            m[key(r)] = r
            if key(r) not in order:
                order.append(key(r))
        by.append(m)
    head = "| shape | mode | GFLOP (proj + rec) |"
    rule = "|---|---|---|"
    for i in range(0, len(runs), 2):
        t, p = runs[i], runs[i + 1]
        head += f" tandem {t['threads']}T | torch {p['threads']}T | ratio |"
        rule += "---|---|---|"
    print(head)
    print(rule)
    for k in order:
        label, B, T, I, H, L, bidi, mode = k
        any_r = next(m[k] for m in by if k in m)
        row = (f"| {label} B{B} T{T} I{I} H{H}{' L' + str(L) if L > 1 else ''}{' bidi' if bidi else ''} | {mode} | "
               f"{any_r['projection_flops'] / 1e9:.2f} + {any_r['recurrent_flops'] / 1e9:.2f} |")
        for i in range(0, len(runs), 2):
            a, b = by[i].get(k), by[i + 1].get(k)
            fa = f"{a[METRIC]:.1f}" if a else "-"
            fb = f"{b[METRIC]:.1f}" if b else "-"
            ratio = f"{a[METRIC] / b[METRIC]:.2f}x" if a and b else "-"
            row += f" {fa} | {fb} | {ratio} |"
        print(row)


if __name__ == "__main__":
    main(sys.argv[1:])
