#!/usr/bin/env python3
"""Each side at its best thread count: reads the rounds that
lab/bench/lstm_interleaved_run.sh wrote with THREADS="1 default" and prints a Markdown table of
the minimum wall time per tool and thread setting (lab/tables/lstm_interleaved_table.py's
minimum), and tandem's best (kernel and primitive path) against PyTorch's best as a speed
ratio (> 1: tandem faster).
    lab/tables/lstm_best_threads_table.py FOLDER ROUND [ROUND ...]
"""
import os
import sys

from bad_input import refuse
from lstm_interleaved_table import minimum


def main():
    if len(sys.argv) < 3:
        refuse("no FOLDER and ROUNDs", "lab/tables/lstm_best_threads_table.py FOLDER ROUND [ROUND ...]")
    folder, rounds = sys.argv[1], sys.argv[2:]
    for r in rounds:
        for tool in ("kernel", "primitive", "torch"):
            for threads in ("1", "default"):
                if not os.path.isfile(os.path.join(folder, f"r{r}_{tool}_{threads}.json")):
                    refuse(f"{folder}/r{r}_{tool}_{threads}.json is missing",
                           'run lab/bench/lstm_interleaved_run.sh with THREADS="1 default"')
    t = {(tool, th): minimum(folder, tool, th, rounds=rounds)[0]
         for tool in ("kernel", "primitive", "torch") for th in ("1", "default")}
    print("| shape | mode | kernel 1t s | kernel 2t s | PyTorch 1t s | PyTorch 2t s "
          "| kernel best vs PyTorch best (speed) | primitive best vs PyTorch best (speed) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    # Only modes PyTorch has (the kernel's old recompute mode has no counterpart).
    shapes = sorted(k for k in t[("torch", "1")] if k in t[("primitive", "1")])
    if not shapes:
        refuse("no shape has both tandem and PyTorch rows in these rounds", "run the rounds with the same FILTER")
    for k in shapes:
        best = {tool: min(t[(tool, "1")][k], t[(tool, "default")][k]) for tool in ("kernel", "primitive", "torch")}
        print(f"| {k[0]} | {k[1]} | {t[('kernel', '1')][k]:.4f} | {t[('kernel', 'default')][k]:.4f} "
              f"| {t[('torch', '1')][k]:.4f} | {t[('torch', 'default')][k]:.4f} "
              f"| {best['torch'] / best['kernel']:.2f}× | {best['torch'] / best['primitive']:.2f}× |")


if __name__ == "__main__":
    main()
