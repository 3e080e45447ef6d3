#!/usr/bin/env python3
"""tandem's LSTM against PyTorch at PyTorch's best configuration, found by a grid: reads the
rounds lab/bench/lstm_interleaved_run.sh wrote with THREADS="1 default" and
TORCH_GRID="INTRAxBLAS ..." and prints, per shape and mode, PyTorch's minimum wall time at
each setting of the grid, the winning setting, tandem's kernel and primitive path at their own
best thread setting, and the speed ratio (PyTorch best / tandem best, > 1: tandem faster).
The ratio is computed per round (the tools ran back to back in it) and reported as the median
with its min–max over the rounds; when that spread is wider than the median's distance from 1
the row says "within noise" rather than naming a winner. "1 core" is the same at one thread
each: tandem with OPENBLAS_NUM_THREADS=1, PyTorch at 1x1; "matched" is tandem at as many
threads as PyTorch's best setting uses (1 for 1x1, else its default 2).

    lab/tables/lstm_peer_grid_table.py FOLDER ROUND [ROUND ...]
"""
import os
import re
import statistics
import sys

from bad_input import refuse
from lstm_interleaved_table import key, rows


def per_round(folder, tool, setting, rounds):
    """{(shape, mode): {round: min_s}} for one tool at one setting."""
    out = {}
    for r in rounds:
        path = os.path.join(folder, f"r{r}_{tool}_{setting}.json")
        if not os.path.isfile(path):
            refuse(f"{path} is missing", 'run lab/bench/lstm_interleaved_run.sh with THREADS="1 default" '
                   'TORCH_GRID="1x1 1x2 2x1 2x2"')
        for row in rows(path, strict=True):
            out.setdefault(key(row), {})[r] = row["min_s"]
    return out


def grid_settings(folder, rounds):
    """The INTRAxBLAS settings PyTorch ran at in the first round."""
    if not os.path.isdir(folder):
        refuse(f"{folder} is not a folder", "name the OUT folder of lab/bench/lstm_interleaved_run.sh")
    found = sorted(m.group(1) for f in os.listdir(folder)
                   if (m := re.fullmatch(rf"r{rounds[0]}_torch_(\d+x\d+)\.json", f)))
    if not found:
        refuse(f"no r{rounds[0]}_torch_INTRAxBLAS.json in {folder}",
               'run lab/bench/lstm_interleaved_run.sh with TORCH_GRID="1x1 1x2 2x1 2x2"')
    return found


def ratio_text(peer, ours):
    """Median of the per-round speed ratios (rounds both ran), its spread, and whether the
    spread decides it."""
    ratios = [peer[r] / ours[r] for r in peer if r in ours]
    med, lo, hi = statistics.median(ratios), min(ratios), max(ratios)
    verdict = "within noise" if hi - lo > abs(med - 1) else ("tandem faster" if med > 1 else "PyTorch faster")
    return f"{med:.2f}× ({lo:.2f}–{hi:.2f}) {verdict}"


def best_setting(times, k, settings):
    """The setting with the smallest minimum over the rounds for row k."""
    return min(settings, key=lambda s: min(times[s][k].values()))


def main():
    if len(sys.argv) < 3:
        refuse("no FOLDER and ROUNDs", "lab/tables/lstm_peer_grid_table.py FOLDER ROUND [ROUND ...]")
    folder, rounds = sys.argv[1], sys.argv[2:]
    grid = grid_settings(folder, rounds)
    torch = {g: per_round(folder, "torch", g, rounds) for g in grid}
    ours = {(tool, th): per_round(folder, tool, th, rounds) for tool in ("kernel", "primitive") for th in ("1", "default")}
    shapes = sorted(k for k in torch[grid[0]] if k in ours[("kernel", "1")])
    if not shapes:
        refuse("no shape has both tandem and PyTorch rows in these rounds", "run the rounds with the same FILTER")
    print("| shape | mode | " + " | ".join(f"PyTorch {g} s" for g in grid) + " | PyTorch best | tandem kernel best "
          "| kernel vs PyTorch best (speed) | primitive vs PyTorch best (speed) | kernel at matched threads | 1 core: kernel vs PyTorch 1x1 |")
    print("|---|---|" + "---:|" * len(grid) + "---|---|---:|---:|---:|---:|")
    for k in shapes:
        pt = best_setting(torch, k, grid)
        kt = best_setting({th: ours[("kernel", th)] for th in ("1", "default")}, k, ("1", "default"))
        pp = best_setting({th: ours[("primitive", th)] for th in ("1", "default")}, k, ("1", "default"))
        cells = " | ".join(f"{min(torch[g][k].values()):.4f}" for g in grid)
        matched = "1" if pt == "1x1" else "default"  # as many cores as PyTorch's best uses
        one_core = ratio_text(torch["1x1"][k], ours[("kernel", "1")][k]) if "1x1" in torch else "–"
        print(f"| {k[0]} | {k[1]} | {cells} | {pt}: {min(torch[pt][k].values()):.4f} "
              f"(median {statistics.median(torch[pt][k].values()):.4f}) | {kt}: {min(ours[('kernel', kt)][k].values()):.4f} "
              f"| {ratio_text(torch[pt][k], ours[('kernel', kt)][k])} "
              f"| {ratio_text(torch[pt][k], ours[('primitive', pp)][k])} "
              f"| {matched}: {ratio_text(torch[pt][k], ours[('kernel', matched)][k])} | {one_core} |")


if __name__ == "__main__":
    main()
