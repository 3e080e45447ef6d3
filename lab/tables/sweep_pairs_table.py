#!/usr/bin/env python3
"""Sets each tandem collective next to the raw library call it wraps, from the records of
`tandem collectives` sweeps (lab/pages/collectives.md): per world size and message
size, busbw of both at the p50 time and the time ratio tandem / raw, then geometric means of
the ratio for messages below and from 1 MiB, and last one table of the ≥ 1 MiB geometric
means with a row per world size. One column per (op, place). Several records files of one
world size are repeated runs of one sweep: each cell is then the median over the runs (of the
ratio, and of each busbw), which a stall of a loaded machine in one run does not move.

    lab/tables/sweep_pairs_table.py results/coll-np4/records.json [more runs' records.json ...]

A records file may be gzipped (NAME.json.gz, as committed under lab/records/collectives/).
Older sweep records (before the raw call became a column of its op) name the raw call as an op of its own (`-o
psum,mpi_allreduce`); OLD_RAW_OPS pairs them. Bad input (a missing or garbled file, a failed
row, no pair): exit 4 with a hint.

busbw at p50 = the record's busbw (nccl-tests' factor of the op, from the sweep's op table,
at the mean time) × mean / p50, so the factors live in one place.
"""
import gzip
import json
import math
import statistics
import sys

from bad_input import refuse

# The pre-issue-14 sweep's raw ops (`-o mpi_allreduce`) and the tandem op each was timed against.
OLD_RAW_OPS = {"mpi_allreduce": "psum", "mpi_allgather": "all_gather", "mpi_reduce_scatter": "psum_scatter",
               "mpi_alltoall": "all_to_all", "mpi_alltoallv": "ragged_all_to_all"}


def size_label(b):
    return f"{b // 1048576} MiB" if b >= 1048576 else f"{b // 1024} KiB"


def load(paths):
    """[(run index, record)], old raw ops renamed to (tandem op, impl raw, call)."""
    recs = []
    for i, path in enumerate(paths):
        try:
            doc = json.load(gzip.open(path, "rt") if path.endswith(".gz") else open(path))
            for r in (doc["records"] if isinstance(doc, dict) else doc):
                p = r["params"]
                if p["op"] in OLD_RAW_OPS and "impl" not in p:
                    p.update(call=p["op"], op=OLD_RAW_OPS[p["op"]], impl="raw")
                recs.append((i, r))
        except (OSError, EOFError, ValueError, KeyError, TypeError) as e:
            refuse(f"{path}: not a sweep's records ({type(e).__name__}: {e})",
                 "pass the records.json(.gz) that `tandem collectives --out DIR` wrote")
    return recs


def busbw_p50(r):
    t = r["timing"]
    bus = next(m["value"] for m in r["metrics"] if m["name"] == "busbw")
    return bus * t["mean"] / t["median"]


def gmean(v):
    return f"{math.exp(sum(math.log(x) for x in v) / len(v)):.2f}" if v else "-"


def pair_table(rows, calls, nruns, ranks):
    """Prints one world size's pair table and geometric-mean line; returns {col: ≥ 1 MiB gmean}."""
    sizes = sorted({k[3] for k in rows})
    cols = sorted({(op, ip) for (op, ip, impl, _) in rows if impl == "raw" and (op, ip, "tandem", _) in rows})
    if not cols:
        refuse("no (tandem op, raw call) pair in these records", "run the sweep with --raw 1 (the default)")
    name = lambda op, ip: f"{op}{' in place' if ip else ''}"
    print("| size | " + " | ".join(f"{name(*c)} / {calls[c[0]]}" for c in cols) + " |")
    print("|---:|" + "---|" * len(cols))
    ratios = {c: ([], []) for c in cols}
    for s in sizes:
        cells = []
        for op, ip in cols:
            a, b = rows.get((op, ip, "tandem", s), {}), rows.get((op, ip, "raw", s), {})
            runs = sorted(set(a) & set(b))
            if not runs:
                cells.append("-")
                continue
            ratio = statistics.median(a[i]["timing"]["median"] / b[i]["timing"]["median"] for i in runs)
            ratios[(op, ip)][s >= 1048576].append(ratio)
            bus_a = statistics.median(busbw_p50(a[i]) for i in runs)
            bus_b = statistics.median(busbw_p50(b[i]) for i in runs)
            cells.append(f"{bus_a:.2f} / {bus_b:.2f} ({ratio:.2f})")
        print(f"| {size_label(s)} | " + " | ".join(cells) + " |")
    print()
    runs = f", median of {nruns} runs" if nruns > 1 else ""
    print(f"Geometric-mean time ratio tandem ÷ raw at p50{runs}, {ranks} ranks, ≥ 1 MiB (< 1 MiB): " +
          "; ".join(f"{name(*c)} {gmean(ratios[c][1])} ({gmean(ratios[c][0])})" for c in cols) + ".")
    print()
    return {name(*c): gmean(ratios[c][1]) for c in cols}


def main(paths):
    rows, calls, runs = {}, {}, {}  # per world size: (op, inplace, impl, bytes) → {run: record}, op → call, runs
    for run, r in load(paths):
        if r.get("verdict") != "pass":
            refuse(f"{r['case']} did not pass ({r.get('message', '')})", "the table compares only checked, passing rows")
        p = r["params"]
        rows.setdefault(p["ranks"], {}).setdefault(
            (p["op"], bool(p.get("inplace")), p.get("impl", "tandem"), p["bytes"]), {})[run] = r
        runs.setdefault(p["ranks"], set()).add(run)
        if p.get("impl") == "raw":
            calls.setdefault(p["ranks"], {})[p["op"]] = p.get("call", "raw")
    means = {g: pair_table(rows[g], calls.get(g, {}), len(runs[g]), g) for g in sorted(rows)}
    ops = sorted({op for m in means.values() for op in m})
    print("| ranks | " + " | ".join(ops) + " |")
    print("|---|" + "---|" * len(ops))
    for g, m in means.items():
        print(f"| {g} | " + " | ".join(m.get(op, "-") for op in ops) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        refuse("no records file given", "usage: sweep_pairs_table.py records.json [records.json ...]")
    main(sys.argv[1:])
