#!/usr/bin/env python3
"""Each side at its best thread count (issue 19): reads the rounds that
tools/lstm_interleaved_run.sh wrote with THREADS="1 default" and prints a Markdown table of
the minimum wall time per tool and thread setting, and tandem's best (kernel and primitive
path) against PyTorch's best as a speed ratio (> 1: tandem faster).
    tools/lstm_best_threads_table.py FOLDER ROUND [ROUND ...]
"""
import collections
import json
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: tools/lstm_best_threads_table.py FOLDER ROUND [ROUND ...]")
    folder, rounds = sys.argv[1], sys.argv[2:]
    best = collections.defaultdict(dict)
    for tool in ("kernel", "primitive", "torch"):
        for threads in ("1", "default"):
            for r in rounds:
                path = f"{folder}/r{r}_{tool}_{threads}.json"
                try:
                    results = json.load(open(path))["results"]
                except (OSError, ValueError, KeyError) as e:
                    sys.exit(f"error: {path}: {e}\n  hint: run tools/lstm_interleaved_run.sh with THREADS=\"1 default\"")
                for x in results:
                    key = (x["label"], x["batch"], x["seq"], x["hidden"], x["layers"], x["bidirectional"], x["mode"])
                    best[key][(tool, threads)] = min(best[key].get((tool, threads), float("inf")), x["min_s"])
    print("| shape | mode | kernel 1t s | kernel 2t s | PyTorch 1t s | PyTorch 2t s "
          "| kernel best vs PyTorch best (speed) | primitive best vs PyTorch best (speed) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    rows = 0
    for key, v in sorted(best.items()):
        if ("torch", "1") not in v or ("primitive", "1") not in v:
            continue  # modes PyTorch has no counterpart for (the kernel's old recompute mode)
        torch_best = min(v[("torch", "1")], v[("torch", "default")])
        kernel_best = min(v[("kernel", "1")], v[("kernel", "default")])
        prim_best = min(v[("primitive", "1")], v[("primitive", "default")])
        label, b, t, h, layers, bidi, mode = key
        print(f"| {label} B{b} T{t} H{h} L{layers}{' bidi' if bidi else ''} | {mode} "
              f"| {v[('kernel', '1')]:.4f} | {v[('kernel', 'default')]:.4f} "
              f"| {v[('torch', '1')]:.4f} | {v[('torch', 'default')]:.4f} "
              f"| {torch_best / kernel_best:.2f}× | {torch_best / prim_best:.2f}× |")
        rows += 1
    if rows == 0:
        sys.exit("error: no shape has both tandem and PyTorch rows in these rounds")


if __name__ == "__main__":
    main()
