#!/usr/bin/env python3
"""The Program path against XLA:CPU, from lab/bench/program_vs_xla.py's records (one JSON line
per row, threads, round, side and case): per (row, threads) the minimum over the rounds of each
side's seconds per call, forward and gradient, and tandem / XLA; the rounds' load range, CPU
and ISA. Minima, because the rounds ran on a shared machine where a median measures preemption.

    lab/tables/program_vs_xla_table.py RECORDS.jsonl [RECORDS.jsonl ...]

A missing or malformed file, or a (row, threads) without both sides of both cases: exit 4.
"""
import json
import sys

from bad_input import refuse

HINT = "pass the JSONL that lab/bench/program_vs_xla.py --out wrote, unedited"
FIELDS = ("cpu", "isa", "row", "threads", "round", "side", "case", "seconds", "load")


def load(paths):
    recs = []
    for path in paths:
        try:
            lines = open(path).read().splitlines()
        except (OSError, UnicodeDecodeError) as e:
            refuse(f"{path}: cannot be read ({e})", HINT)
        for n, line in enumerate(lines, 1):
            try:
                r = json.loads(line)
            except ValueError as e:
                refuse(f"{path}:{n}: not JSON ({e})", HINT)
            if not isinstance(r, dict) or any(f not in r for f in FIELDS):
                refuse(f"{path}:{n}: want the fields {', '.join(FIELDS)}", HINT)
            recs.append(r)
    if not recs:
        refuse("no records", HINT)
    return recs


def minima(recs):
    """{(row, threads): {(side, case): min seconds}}, and the loads and machines per key."""
    best, loads, cpus = {}, {}, {}
    for r in recs:
        key = (r["row"], r["threads"])
        cell = best.setdefault(key, {})
        sc = (r["side"], r["case"])
        cell[sc] = min(cell.get(sc, float("inf")), float(r["seconds"]))
        loads.setdefault(key, []).append(float(r["load"]))
        cpus.setdefault(key, set()).add(f'{r["cpu"]} ({r["isa"]})')
    return best, loads, cpus


def fmt_ms(s):
    return f"{s * 1e3:.3g}"


def main(argv):
    if not argv:
        refuse("no records given", HINT)
    best, loads, cpus = minima(load(argv))
    print("| program (scaled) | threads | forward ms tandem | forward ms XLA | tandem/XLA | "
          "gradient ms tandem | gradient ms XLA | tandem/XLA | rounds' load | CPU |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (row, threads) in sorted(best):
        cell = best[(row, threads)]
        need = [(s, c) for s in ("tandem", "xla") for c in ("forward", "gradient")]
        if any(k not in cell for k in need):
            refuse(f"{row} at {threads} thread(s) lacks a side or a case", HINT)
        t = lambda s, c: cell[(s, c)]
        lo, hi = min(loads[(row, threads)]), max(loads[(row, threads)])
        print(f"| {row} | {threads} | {fmt_ms(t('tandem', 'forward'))} | {fmt_ms(t('xla', 'forward'))} | "
              f"{t('tandem', 'forward') / t('xla', 'forward'):.2f}× | {fmt_ms(t('tandem', 'gradient'))} | "
              f"{fmt_ms(t('xla', 'gradient'))} | {t('tandem', 'gradient') / t('xla', 'gradient'):.2f}× | "
              f"{lo:.1f}–{hi:.1f} | {', '.join(sorted(cpus[(row, threads)]))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
