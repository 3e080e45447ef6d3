#!/usr/bin/env python3
"""Sets each tandem collective next to the raw MPI call it wraps, from the records of one
`tandem collectives` sweep (docs/PERFORMANCE.md, "Collectives"): per size, busbw of both
at the p50 time and the time ratio tandem / raw, then geometric means of the ratio for
messages below and from 1 MiB.

    tools/sweep_pairs_table.py results/coll-np4/records.json

busbw follows nccl-tests: algbw = S / t, × 2(G-1)/G for psum, × (G-1)/G for all_gather,
psum_scatter, all_to_all and ragged_all_to_all (G = ranks in the group).
"""
import json
import math
import sys

PAIRS = [("psum", "mpi_allreduce"), ("all_gather", "mpi_allgather"),
         ("psum_scatter", "mpi_reduce_scatter"), ("all_to_all", "mpi_alltoall"),
         ("ragged_all_to_all", "mpi_alltoallv")]


def bus_factor(op, g):
    return 2 * (g - 1) / g if op in ("psum", "mpi_allreduce") else (g - 1) / g


def size_label(b):
    return f"{b // 1048576} MiB" if b >= 1048576 else f"{b // 1024} KiB"


def main(path):
    doc = json.load(open(path))
    recs = doc["records"] if isinstance(doc, dict) else doc
    p50 = {}
    ranks = 0
    for r in recs:
        if r.get("verdict") != "pass":
            sys.exit(f"error: {r['case']} did not pass ({r.get('message', '')})\n"
                     "  hint: the table compares only checked, passing rows")
        p = r["params"]
        ranks = p["ranks"]
        p50[(p["op"], p["bytes"])] = r["timing"]["median"]
    sizes = sorted({b for (_, b) in p50})
    present = [(a, b) for a, b in PAIRS if any((a, s) in p50 and (b, s) in p50 for s in sizes)]
    if not present:
        sys.exit("error: no (tandem op, raw MPI op) pair in these records\n"
                 "  hint: run the sweep with -o psum,mpi_allreduce,...")
    print("| size | " + " | ".join(f"{a} / {b}" for a, b in present) + " |")
    print("|---:|" + "---|" * len(present))
    ratios = {pair: ([], []) for pair in present}
    for s in sizes:
        cells = []
        for a, b in present:
            if (a, s) not in p50 or (b, s) not in p50:
                cells.append("-")
                continue
            ta, tb = p50[(a, s)], p50[(b, s)]
            f = bus_factor(a, ranks)
            ratio = ta / tb
            ratios[(a, b)][s >= 1048576].append(ratio)
            cells.append(f"{s / ta * f / 1e9:.2f} / {s / tb * f / 1e9:.2f} ({ratio:.2f})")
        print(f"| {size_label(s)} | " + " | ".join(cells) + " |")

    def gmean(v):
        return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")
    print()
    print(f"Geometric-mean time ratio tandem ÷ raw, {ranks} ranks, ≥ 1 MiB (< 1 MiB): " +
          "; ".join(f"{a} {gmean(ratios[(a, b)][1]):.2f} ({gmean(ratios[(a, b)][0]):.2f})" for a, b in present) + ".")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: sweep_pairs_table.py records.json")
    main(sys.argv[1])
