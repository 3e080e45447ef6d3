#!/usr/bin/env python3
"""The cost of each DotAlgorithm preset on the CPU, next to the BLAS called directly: reads
rounds of the dot suite's perf records (r<ROUND>.json, each the records.json of one
`tandem run --suite dot --profile nightly --filter perf` run) and prints one row per
algorithm: the `blas_sgemm` case (cblas_sgemm on the same operands) and then every preset, in
the order the suite registered them (the records' order, so a preset added to the suite's
table shows up here without an edit). Per N the best round's median time and its GFLOP/s (the
2·N³ FLOPs of one logical product, so a split preset shows the rate a user gets); at the
largest N the time against F32_F32_F32 in the same round, median over rounds with its min–max.

    lab/tables/dot_preset_table.py FOLDER ROUND [ROUND ...]
"""
import os
import statistics
import sys

from bad_input import load_json, refuse

F32 = "F32_F32_F32"


def load_round(folder, r):
    """({(algorithm, N): median s} of the passing CPU perf records, [algorithms in record order], BLAS)."""
    path = os.path.join(folder, f"r{r}.json")
    hint = f"rerun round {r} into {path} (lab/records/dot/presets/README.md), or leave round {r} out"
    times, order, blas = {}, [], ""
    for rec in load_json(path, "records", hint)["records"]:
        if not rec["case"].startswith("dot/perf/") or rec["backend"] != "cpu" or rec["verdict"] != "pass":
            continue
        alg, n = rec["params"]["algorithm"], int(rec["params"]["m"])
        times[(alg, n)] = rec["timing"]["median"]
        order += [alg] if alg not in order else []
        blas = blas or " ".join(rec["context"].get("blas", "").split()[:2])
    if F32 not in order:
        refuse(f"{path} has no passing {F32} perf record", "run the dot suite with --filter perf")
    return times, order, blas


def cell(times, alg, n):
    best = min((t[(alg, n)] for t in times if (alg, n) in t), default=None)
    if best is None:
        return "—"
    ms = best * 1e3  # three significant digits (7.20, not 7.2), without exponent notation
    return (f"{ms:#.3g} ms" if ms < 100 else f"{ms:.0f} ms") + f" · {2.0 * n ** 3 / best / 1e9:.0f}"


def cost(times, alg, n):
    ratios = [t[(alg, n)] / t[(F32, n)] for t in times if (alg, n) in t and (F32, n) in t]
    if not ratios:
        return "—"
    return f"{statistics.median(ratios):.2f}× ({min(ratios):.2f}–{max(ratios):.2f})"


def main():
    if len(sys.argv) < 3:
        refuse("no FOLDER and ROUNDs", "lab/tables/dot_preset_table.py lab/records/dot/presets 1 2 3")
    folder, rounds = sys.argv[1], sys.argv[2:]
    if not os.path.isdir(folder):
        refuse(f"{folder} is not a folder", "name the folder that holds the rounds' r<ROUND>.json")
    loaded = [load_round(folder, r) for r in rounds]
    times = [t for t, _, _ in loaded]
    order = list(dict.fromkeys(a for _, o, _ in loaded for a in o))
    sizes = sorted({n for t in times for (_, n) in t})
    blas = next((b for _, _, b in loaded if b), "the BLAS")
    print("| algorithm | " + " | ".join(f"N = {n}: ms · GFLOP/s" for n in sizes) + f" | cost vs F32 at {sizes[-1]} |")
    print("|---|" + "---:|" * (len(sizes) + 1))
    for alg in order:
        name = f"blas_sgemm: cblas_sgemm of {blas}, directly" if alg == "blas_sgemm" else alg
        print(f"| {name} | " + " | ".join(cell(times, alg, n) for n in sizes) + f" | {cost(times, alg, sizes[-1])} |")


if __name__ == "__main__":
    main()
