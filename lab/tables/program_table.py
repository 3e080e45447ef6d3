#!/usr/bin/env python3
"""lab/README.md's "Imported programs" tables from `tandem run --program` records: per
program, each checkpoint policy's time, saved bytes, predicted and measured peak and
recomputed applications; then vmap's and the hoisting pass's measured effect. One command per
table, on committed records (lab/records/program/):

    lab/tables/program_table.py lab/records/program/*/records.json
"""
import re
import sys

from bad_input import load_json


def metrics(rec):
    return {m["name"]: m["value"] for m in rec.get("metrics", [])}


def median_us(rec):
    t = rec.get("timing") or {}
    return f"{t['median'] * 1e6:.0f}" if "median" in t else "—"


def main(paths):
    hint = "tandem run --program DIR -o OUT writes OUT/records.json"
    recs = [r for p in paths for r in load_json(p, "records", hint)["records"]]
    if not recs:
        print("error: no records\n  hint: tandem run --program DIR -o OUT writes OUT/records.json", file=sys.stderr)
        return 4
    print("| program | policy | verdict | median µs | saved B | predicted peak B | measured peak B | recomputed |")
    print("|---|---|---|---|---|---|---|---|")
    for r in recs:
        m = re.match(r"program/([^/]+)/vjp/policy:(.+)/\w+$", r["case"])
        if m:
            ms = metrics(r)
            print(f"| {m[1]} | `{m[2]}` | {r['verdict']} | {median_us(r)} | {ms.get('residual_bytes', 0):.0f} | "
                  f"{ms.get('predicted_peak_bytes', 0):.0f} | {ms.get('measured_peak_bytes', 0):.0f} | "
                  f"{ms.get('recomputed_eqns', 0):.0f} |")
    print("\n| program | transformation | verdict | effect (min of 5 interleaved rounds) |\n|---|---|---|---|")
    for r in recs:
        m, ms = re.match(r"program/([^/]+)/(vmap/size:\d+|hoist)/\w+$", r["case"]), metrics(r)
        if not m:
            continue
        if "vmap_speedup_over_loop" in ms:
            effect = (f"vmap {ms['vmap_speedup_over_loop']:.2f}x the engine's loop over the examples "
                      f"({ms['loop_min_s'] * 1e6:.0f} vs {ms['vmap_min_s'] * 1e6:.0f} µs)")
        elif "hoist_speedup" in ms:
            effect = (f"hoisted {ms['hoist_speedup']:.2f}x the original ({ms['rewrites']:.0f} rewrite(s) forced; "
                      f"the cost model made {ms['cost_model_rewrites']:.0f})")
        else:
            effect = "nothing to hoist"
        print(f"| {m[1]} | {m[2]} | {r['verdict']} | {effect} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
