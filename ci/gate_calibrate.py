#!/usr/bin/env python3
"""Measures the run-level gate itself: its false-alarm rate on A/A comparisons and
its power against slowdowns planted in the engine (perf faults, `tandem faults --list`).

collect: a pool of processes of one binary, in cycles of three — clean, clean, faulted (the
fault alternating perf_dot_extra_25pct / perf_dot_extra_10pct between cycles) — the order
inside a cycle rotating, each process the fixed perf set of ci/gate_ab.sh, the load average
noted at its start. Resumable: a process whose records exist is not run again.
evaluate: gate invocations formed from DISJOINT blocks of consecutive cycles (k processes per
side): A/A = first clean vs second clean, power = first clean vs faulted. Each is gated exactly
as `tandem gate --baseline-runs --current-runs` does (reports/gate_runs.py); exit 2 counts as
flagged. Also the old repetition-level gate on single A/A pairs, for contrast, and each
case's A/A spread with the processes per side a 5/10/25 % change needs.

    ci/gate_calibrate.py collect --bin build/tandem --cycles 120 --out results/gate-cal
    ci/gate_calibrate.py evaluate --out results/gate-cal --runs-per-side 3
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FAULTS = ("perf_dot_extra_25pct", "perf_dot_extra_10pct")


def perf_filter():
    for line in (ROOT / "ci" / "gate_ab.sh").read_text().splitlines():
        if line.startswith("filter=${GATE_AB_FILTER:-'"):
            return line.split("'")[1]
    raise SystemExit("ci/gate_ab.sh has no default filter line")


def collect(a):
    out = Path(a.out)
    log = out / "pool.jsonl"
    out.mkdir(parents=True, exist_ok=True)
    for i in range(a.cycles):
        fault = FAULTS[i % 2]
        slots = [("a", ""), ("a2", ""), ("f", fault)]
        slots = slots[i % 3:] + slots[:i % 3]
        for side, inject in slots:
            d = out / side / f"{i:04d}"
            if (d / "records.json").exists():
                continue
            load = open("/proc/loadavg").read().split()[:3]
            env = dict(os.environ, OPENBLAS_NUM_THREADS=str(a.blas_threads), OMP_NUM_THREADS=str(a.blas_threads))
            env.pop("TANDEM_INJECT", None)
            if inject:
                env["TANDEM_INJECT"] = inject
            t0 = time.time()
            r = subprocess.run([a.bin, "run", "-q", "--profile", "nightly", "--backend", "cpu", "--filter", a.filter,
                                "-n", str(a.reps), "--out", str(d)], env=env, capture_output=True, text=True)
            if r.returncode not in (0, 1):
                raise SystemExit(f"{side} {i}: exit {r.returncode}\n{r.stderr[-2000:]}")
            with open(log, "a") as f:
                f.write(json.dumps({"cycle": i, "side": side, "fault": inject, "load": load,
                                    "seconds": round(time.time() - t0, 2), "start": t0}) + "\n")
        print(f"cycle {i + 1}/{a.cycles} load {' '.join(load)}", file=sys.stderr, flush=True)


def gate_code(base, cur, alpha, metric):
    from reports import gate, gate_config, gate_runs, run_stats

    cfg = gate_config.Config(alpha=alpha)
    bs, cs = run_stats.run_median_series(base, metric), run_stats.run_median_series(cur, metric)
    o = gate.run(base[0], cur[-1], cfg, None, gate_runs.compare_with(bs, cs, gate_runs.DEFAULT_FLOOR),
                 gate_runs.adjust_and_annotate)
    return o.code, [x for _, _, comps in o.cases for x in comps]


def rate(hits, n):
    """'k/n = p % (95 % CI lo–hi %)', Wilson interval."""
    if not n:
        return "0/0"
    p, z = hits / n, 1.96
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"{hits}/{n} = {p:.1%} (95 % CI {max(0, c - h):.1%}–{min(1, c + h):.1%})"


def evaluate(a):
    from reports import gate, gate_config, records, run_stats, stats

    out = Path(a.out)
    pool = {s: {int(p.parent.name): records.load(p) for p in (out / s).glob("*/records.json")} for s in ("a", "a2", "f")}
    cycles = sorted(set(pool["a"]) & set(pool["a2"]) & set(pool["f"]))
    k = a.runs_per_side
    blocks = {"aa": [cycles[j:j + k] for j in range(0, len(cycles) - k + 1, k)]}
    for n, fault in enumerate(FAULTS):
        cs = [c for c in cycles if c % 2 == n]
        blocks[fault] = [cs[j:j + k] for j in range(0, len(cs) - k + 1, k)]
    res = {m: {w: [gate_code([pool["a"][c] for c in b], [pool["a2" if w == "aa" else "f"][c] for c in b], a.alpha, m)[0]
                   for b in bl] for w, bl in blocks.items()} for m in ("cpu", "wall")}
    old = [gate.run(pool["a"][c], pool["a2"][c], gate_config.Config()).code for c in cycles]
    loads = [float(json.loads(l)["load"][0]) for l in open(out / "pool.jsonl")] if (out / "pool.jsonl").exists() else []
    flagged = lambda codes: rate(sum(c == 2 for c in codes), len(codes))
    lines = [f"pool: {len(cycles)} cycles (clean, clean, faulted), {k} processes per side per invocation (disjoint), "
             f"α = {a.alpha}; load average (1 min) at process starts: min {min(loads, default=0):.2f}, "
             f"median {sorted(loads)[len(loads) // 2] if loads else 0:.2f}, max {max(loads, default=0):.2f}", "",
             "| comparison | CPU time (default): exit 2 | wall time: exit 2 |", "|---|---|---|"]
    for w, label in (("aa", "A/A"), (FAULTS[0], "+25 % planted (perf_dot_extra_25pct)"),
                     (FAULTS[1], "+10 % planted (perf_dot_extra_10pct)")):
        lines.append(f"| {label} | {flagged(res['cpu'][w])} | {flagged(res['wall'][w])} |")
    lines += [f"| A/A, old repetition-level gate (wall), one process per side | — | {flagged(old)} |", "",
              "| case | metric | A/A spread | processes per side for MDE 5 % / 10 % / 25 % |", "|---|---|---|---|"]
    head = lines[-2:]
    lines[-2:] = ["The slowdown each fault really planted (median over the pool of faulted / clean run medians, CPU time):",
                  "", "| case | " + " | ".join(FAULTS) + " |", "|---|---|---|"]
    planted = {}
    for n, fault in enumerate(FAULTS):
        cs = [c for c in cycles if c % 2 == n]
        (sa, _), (sf, _) = (run_stats.run_median_series([pool[x][c] for c in cs]) for x in ("a", "f"))
        for case in sa:
            planted.setdefault(case, {})[fault] = stats.median(sf[case]) / stats.median(sa[case]) - 1
    for case, p in sorted(planted.items()):
        lines.append(f"| `{case}` | " + " | ".join(f"{p.get(f, float('nan')):+.1%}" for f in FAULTS) + " |")
    lines += [""] + head
    spreads = {}
    for metric in ("cpu", "wall"):
        series, names = run_stats.run_median_series([pool["a"][c] for c in cycles] + [pool["a2"][c] for c in cycles], metric)
        for case, v in sorted(series.items()):
            n = len(v) // 2
            s = run_stats.pooled([math.log(x) for x in v[:n]], [math.log(x) for x in v[n:]])[0]
            spreads[f"{case} {names[case]}"] = s
            need = [run_stats.runs_needed(s, e, a.alpha, len(series)) for e in (0.05, 0.10, 0.25)]
            lines.append(f"| `{case}` | {names[case]} | {s:.1%} | " + " / ".join(str(x or ">64") for x in need) + " |")
    text = "\n".join(lines)
    print(text)
    (out / f"calibration-k{k}.md").write_text(text + "\n")
    (out / f"calibration-k{k}.json").write_text(json.dumps({"runs_per_side": k, "alpha": a.alpha, "codes": res,
                                                      "old_gate_codes": old, "spreads": spreads}, indent=1))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--bin", default=str(ROOT / "build" / "tandem"))
    c.add_argument("--cycles", type=int, default=120)
    c.add_argument("--reps", type=int, default=5)
    c.add_argument("--filter", default=perf_filter())
    c.add_argument("--out", default="results/gate-cal")
    c.add_argument("--blas-threads", type=int, default=1, help="OPENBLAS_NUM_THREADS of each process (as ci/gate_ab.sh)")
    e = sub.add_parser("evaluate")
    e.add_argument("--out", default="results/gate-cal")
    e.add_argument("--runs-per-side", type=int, default=3)
    e.add_argument("--alpha", type=float, default=0.05)
    a = ap.parse_args(argv)
    (collect if a.cmd == "collect" else evaluate)(a)


if __name__ == "__main__":
    main(sys.argv[1:])
