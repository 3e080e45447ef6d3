#!/usr/bin/env python3
"""The scan-reduction hoisting sweep's length × batch table (lab/pages/scan_hoist.md)
from `tandem run --suite scan_hoist --filter sweep/...` records: per (L, E) the speed-up of
the hoisted program (original / hoisted, the minima the case records) and the peak above the
inputs, original / hoisted. The peaks are deterministic; the times are this run's. Records of
the large programs (scan_hoist/<name>/L:../B:../F:.. cases) give a table of those: per program
both peaks, both times and the speed-up.

    lab/tables/scan_hoist_sweep_table.py lab/records/scan_hoist/sweep.records.json

A missing or garbled file, or records without a sweep case: exit 4 with a hint.
"""
import json
import re
import sys

from bad_input import refuse

HINT = "pass the records.json of `tandem run --suite scan_hoist --filter sweep/mse/...` (or of its large programs)"


def fail(message):
    refuse(message, HINT)


def sweeps(path):
    """The info.table of each sweep record: [{L, E, speedup, peak_original_bytes, peak_hoisted_bytes}]."""
    try:
        doc = json.load(open(path))
        return [r["info"]["table"] for r in doc["records"] if "/sweep/" in r["case"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{path}: not a scan_hoist run's records ({type(e).__name__}: {e})")


CASE = re.compile(r"scan_hoist/(\w+)/L:(\d+)/B:(\d+)/F:(\d+)/dtype:f32/mode:stacked")


def programs(path):
    """Rows of the table of the large programs (cases L:../B:../F:.. with a measured speed-up)."""
    out = []
    for r in json.load(open(path))["records"]:
        m, v = CASE.match(r["case"]), {x["name"]: x["value"] for x in r.get("metrics", [])}
        if m and "speedup" in v:
            name, L, E = m.group(1), int(m.group(2)), int(m.group(3)) * int(m.group(4))
            out.append((name, L, E, f"| {name}, L = {L}, E = {E:,} | {v['peak_above_inputs_original'] / 1e6:.3g} MB → "
                        f"{v['peak_above_inputs_hoisted'] / 1e6:.3g} MB | {v['time_original']:.3f} → "
                        f"{v['time_hoisted']:.3f} s | {v['speedup']:.2f}× |"))
    return [row for *_, row in sorted(out)]


def main(paths):
    found = [t for p in paths for t in sweeps(p)]
    rows = [row for p in paths for row in programs(p)]
    if rows:
        print("| case | peak above inputs, original → hoisted | time, original → hoisted | speed-up |\n|---|---|---|---:|")
        print("\n".join(rows) + "\n")
    if not found and not rows:
        fail(f"no scan_hoist sweep case or large program in {' '.join(paths) or 'no file'}")
    for table in found:
        cell = {(p["L"], p["E"]): p for p in table}
        es = sorted({e for _, e in cell})
        print("| L \\ E | " + " | ".join(f"{e:,}" for e in es) + " |\n|---:|" + "---|" * len(es))
        for n in sorted({n for n, _ in cell}):
            print(f"| {n} | " + " | ".join(
                f"{p['speedup']:.2f}× · {p['peak_original_bytes'] / 1e6:.3g} MB / {p['peak_hoisted_bytes'] / 1e6:.3g} MB"
                if (p := cell.get((n, e))) else "-" for e in es) + " |")
        print()


if __name__ == "__main__":
    main(sys.argv[1:])
