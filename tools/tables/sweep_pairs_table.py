#!/usr/bin/env python3
"""Sets each tandem collective next to the raw library call it wraps, from the records of
`tandem collectives` sweeps (docs/performance/collectives.md): per size, busbw of both at
the p50 time and the time ratio tandem / raw, then geometric means of the ratio for
messages below and from 1 MiB. One column per (op, place). Several records files are
repeated runs of one sweep: each cell is then the median over the runs (of the ratio, and
of each busbw), which a stall of a loaded machine in one run does not move.

    tools/tables/sweep_pairs_table.py results/coll-np4/records.json [more runs' records.json ...]

A records file may be gzipped (NAME.json.gz, as committed under docs/perf/collectives/).

busbw at p50 = the record's busbw (nccl-tests' factor of the op, from the sweep's op table,
at the mean time) × mean / p50, so the factors live in one place.
"""
import gzip
import json
import math
import statistics
import sys

from bad_input import refuse


def size_label(b):
    return f"{b // 1048576} MiB" if b >= 1048576 else f"{b // 1024} KiB"


def load(paths):
    """[(run index, record)]."""
    recs = []
    for i, path in enumerate(paths):
        doc = json.load(gzip.open(path, "rt") if path.endswith(".gz") else open(path))
        recs += [(i, r) for r in (doc["records"] if isinstance(doc, dict) else doc)]
    return recs


def busbw_p50(r):
    t = r["timing"]
    bus = next(m["value"] for m in r["metrics"] if m["name"] == "busbw")
    return bus * t["mean"] / t["median"]


def main(paths):
    rows = {}  # (op, inplace, impl, bytes) → {run: record}
    calls, ranks = {}, set()
    for run, r in load(paths):
        if r.get("verdict") != "pass":
            refuse(f"{r['case']} did not pass ({r.get('message', '')})", "the table compares only checked, passing rows")
        p = r["params"]
        ranks.add(p["ranks"])
        rows.setdefault((p["op"], bool(p.get("inplace")), p.get("impl", "tandem"), p["bytes"]), {})[run] = r
        if p.get("impl") == "raw":
            calls[p["op"]] = p.get("call", "raw")
    sizes = sorted({k[3] for k in rows})
    cols = sorted({(op, ip) for (op, ip, impl, _) in rows if impl == "raw" and (op, ip, "tandem", _) in rows})
    if not cols:
        refuse("no (tandem op, raw call) pair in these records", "run the sweep with --raw 1 (the default)")
    name = lambda op, ip: f"{op}{' in place' if ip else ''} / {calls[op]}"
    print("| size | " + " | ".join(name(*c) for c in cols) + " |")
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

    def gmean(v):
        return f"{math.exp(sum(math.log(x) for x in v) / len(v)):.2f}" if v else "-"
    rk = ", ".join(str(x) for x in sorted(ranks))
    print()
    runs = f", median of {len(paths)} runs" if len(paths) > 1 else ""
    print(f"Geometric-mean time ratio tandem ÷ raw at p50{runs}, {rk} ranks, ≥ 1 MiB (< 1 MiB): " +
          "; ".join(f"{op}{' in place' if ip else ''} {gmean(ratios[(op, ip)][1])} ({gmean(ratios[(op, ip)][0])})"
                    for op, ip in cols) + ".")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: sweep_pairs_table.py records.json [records.json ...]")
    main(sys.argv[1:])
