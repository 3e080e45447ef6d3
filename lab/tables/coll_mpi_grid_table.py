#!/usr/bin/env python3
"""Each tandem collective against its raw MPI call at Open MPI's best setting,
from the folder lab/bench/coll_mpi_grid.sh wrote (OUT/r<R>/<mechanism>-a<K>/: config.json
and records.json.gz). One table per op, one row per size:

  * the raw call's time at each algorithm, one cell "cma / emulated / none" (the single-copy
    mechanisms, in the header's order): µs at the p50 over iterations, the fastest round;
  * raw MPI's best configuration and tandem's best configuration (each at its own fastest);
  * tandem best ÷ raw best, and tandem ÷ raw at matched settings (raw's best configuration):
    time ratios per round, median (min–max); "within noise" when that spread is wider than
    the median's distance from 1.

    lab/tables/coll_mpi_grid_table.py FOLDER
"""
import glob
import gzip
import json
import os
import re
import statistics
import sys

DIR = re.compile(r"r(\d+)/([a-z]+)-a(\d+)$")


def refuse(msg, hint):
    print(f"error: {msg}\n  hint: {hint}", file=sys.stderr)
    sys.exit(4)


def load(folder):
    """{(op, impl, bytes): {(round, (mechanism, K)): p50 s}}, {op: {call, algs: {K: algorithm}}},
    [mechanisms in first-seen order]."""
    runs = sorted(glob.glob(os.path.join(folder, "r*", "*-a*")))
    if not runs:
        refuse(f"no run folder r<R>/<mechanism>-a<K> in {folder}", "run lab/bench/coll_mpi_grid.sh OUT first")
    times, ops, mechs = {}, {}, []
    for run in runs:
        m = DIR.search(run)
        if not m:
            continue
        rnd, mech, k = int(m.group(1)), m.group(2), int(m.group(3))
        try:
            config = json.load(open(os.path.join(run, "config.json")))
            records = json.load(gzip.open(os.path.join(run, "records.json.gz"), "rt"))["records"]
        except (OSError, ValueError, KeyError) as e:
            refuse(f"{run} is incomplete or garbled ({e})", "rerun lab/bench/coll_mpi_grid.sh into a fresh folder")
        if mech not in mechs:
            mechs.append(mech)
        for r in records:
            p = r["params"]
            if r.get("verdict") != "pass":
                refuse(f"{run}: {r['case']} did not pass", "the table compares only checked, passing rows")
            entry = ops.setdefault(p["op"], {"call": "", "algs": {}})
            entry["algs"][k] = config["algorithms"][p["op"]]
            if p["impl"] == "raw":
                entry["call"] = p["call"]
            times.setdefault((p["op"], p["impl"], p["bytes"]), {})[(rnd, (mech, k))] = r["timing"]["median"]
    if not times:
        refuse(f"no records under {folder}", "run lab/bench/coll_mpi_grid.sh OUT first")
    return times, ops, mechs


def fastest(t):
    """{config: min over rounds}."""
    out = {}
    for (_, c), v in t.items():
        out[c] = min(v, out.get(c, v))
    return out


def ratio_text(ratios):
    if not ratios:
        return "-"
    med, lo, hi = statistics.median(ratios), min(ratios), max(ratios)
    verdict = "within noise" if hi - lo > abs(med - 1) else ("tandem faster" if med < 1 else "MPI faster")
    return f"{med:.2f} ({lo:.2f}–{hi:.2f}) {verdict}"


def per_round(a, ca, b, cb):
    return [a[(r, ca)] / b[(r, cb)] for (r, c) in a if c == ca and (r, cb) in b]


def us(seconds):
    v = seconds * 1e6
    return f"{v:.1f}" if v < 100 else f"{v:.0f}"


def name(algs, c):
    return f"{algs[c[1]]}, {c[0]}"


def table(op, call, algs, times, mechs):
    sizes = sorted(s for (o, impl, s) in times if o == op and impl == "raw")
    ks = sorted(algs)
    print(f"| {op} / {call} | " + " | ".join(f"{algs[k]} ({' / '.join(mechs)})" for k in ks)
          + " | raw best | tandem best | tandem best ÷ raw best | tandem ÷ raw, matched |")
    print("|---:|" + "---|" * len(ks) + "---|---|---|---|")
    for s in sizes:
        raw, ours = times[(op, "raw", s)], times.get((op, "tandem", s), {})
        fr, ft = fastest(raw), fastest(ours)
        cells = [" / ".join(us(fr[(m, k)]) if (m, k) in fr else "-" for m in mechs) for k in ks]
        br = min(fr, key=fr.get)
        bt = min(ft, key=ft.get) if ft else None
        best_t = f"{name(algs, bt)}: {us(ft[bt])}" if bt else "-"
        print(f"| {s // 1024} KiB | " + " | ".join(cells) + f" | {name(algs, br)}: {us(fr[br])} | {best_t} | "
              f"{ratio_text(per_round(ours, bt, raw, br) if bt else [])} | {ratio_text(per_round(ours, br, raw, br))} |")
    print()


def main():
    if len(sys.argv) != 2:
        refuse("one argument: the grid's folder", "lab/tables/coll_mpi_grid_table.py OUT")
    if not os.path.isdir(sys.argv[1]):
        refuse(f"{sys.argv[1]} is not a folder", "run lab/bench/coll_mpi_grid.sh OUT first")
    times, ops, mechs = load(sys.argv[1])
    for op in sorted(ops):
        table(op, ops[op]["call"], ops[op]["algs"], times, mechs)
    print("µs at the p50 over iterations, the fastest round; a configuration is \"algorithm, "
          "single-copy mechanism\"; ratios are tandem's time ÷ raw's, per round.")


if __name__ == "__main__":
    main()
