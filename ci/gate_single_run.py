#!/usr/bin/env python3
"""Measures the single-run gate (`tandem gate --baseline A --current B`, one ordinary run per
side, each case judged on its time over the anchor timed beside it: reports/gate_anchor.py)
the way a user meets it: runs of one binary back to back, every pair of them gated.

collect: `tandem run --suite dot --profile nightly --filter 'perf/N:(512|1024)/' -n 9` RUNS
times per scenario, the 1-minute load noted at each start. Scenarios: `clean` (the machine as
it is), `stress` (a stress-ng CPU load that changes between runs: 4, 0, 2, 6, 0, 4 workers),
`fault` (TANDEM_INJECT=perf_dot_extra_25pct: the CPU dot kernel does 25 % more work; the BLAS
anchor is untouched). Resumable: a run whose records exist is not run again.
evaluate: A/A = every pair (i < j) of one scenario's runs, gated both as they are and as older
records without an anchor (absolute time); power = every clean run as baseline against every
faulted run as current. Exit 2 counts as a false alarm (A/A) or a catch (power).

    ci/gate_single_run.py collect --bin build/tandem --out results/gate-single --runs 6 --scenario clean
    (the same with --scenario fault and --scenario stress; the three may run side by side)
    ci/gate_single_run.py evaluate --out results/gate-single --write lab/records/gate_calibration/single-run
(PREFIX.md: the table; PREFIX.json: every exit code and the cases each pair flagged, the loads,
the machine; PREFIX-records.json: every run's raw timings.)
"""
import argparse
import contextlib
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FILTER = "perf/N:(512|1024)/"
FAULT = "perf_dot_extra_25pct"
STRESS_WORKERS = (4, 0, 2, 6, 0, 4)


def load1():
    return float(Path("/proc/loadavg").read_text().split()[0])


@contextlib.contextmanager
def stress(workers):
    """stress-ng --cpu WORKERS for the duration of one run (none for 0)."""
    p = subprocess.Popen(["stress-ng", "--cpu", str(workers), "--quiet"]) if workers else None
    try:
        yield
    finally:
        if p:
            p.terminate()
            p.wait()


def collect(a):
    out = Path(a.out) / a.scenario
    out.mkdir(parents=True, exist_ok=True)
    log = out / "runs.jsonl"
    for i in range(a.runs):
        run_dir = out / f"r{i}"
        if (run_dir / "records.json").is_file():
            continue
        env = dict(os.environ)
        env.pop("TANDEM_INJECT", None)
        if a.scenario == "fault":
            env["TANDEM_INJECT"] = FAULT
        workers = STRESS_WORKERS[i % len(STRESS_WORKERS)] if a.scenario == "stress" else 0
        with stress(workers):
            start = load1()
            cmd = [a.bin, "run", "-q", "--suite", "dot", "--profile", "nightly", "--backend", "cpu",
                   "--filter", FILTER, "-n", "9", "--out", str(run_dir)]
            rc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        with log.open("a") as f:
            f.write(json.dumps({"run": i, "rc": rc, "load1_start": start, "load1_end": load1(),
                                "stress_workers": workers}) + "\n")
        print(f"{a.scenario} r{i}: exit {rc}, load {start:.1f}, stress-ng workers {workers}", flush=True)


def strip_anchors(src, dst):
    doc = json.loads(Path(src).read_text())
    for r in doc["records"]:
        r.pop("anchor", None)
    Path(dst).write_text(json.dumps(doc))
    return str(dst)


def gate(base, cur, gate_raw_calls=False):
    """`tandem gate --baseline BASE --current CUR`'s exit code; `gate_raw_calls`: as the gate was
    before it showed the library calls other cases name as their baseline RAW (blas_sgemm)."""
    from reports import gate_anchor
    from reports.__main__ import main
    keep = gate_anchor.raw_calls
    if gate_raw_calls:
        gate_anchor.raw_calls = lambda recs: set()
    try:
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null), contextlib.redirect_stderr(null):
            return main(["gate", "--baseline", str(base), "--current", str(cur)])
    finally:
        gate_anchor.raw_calls = keep


def flagged(base, cur):
    """The cases a pair's gate called SLOWER or FASTER, with the metric, change and anchor: what
    an A/A false alarm was made of (which cases, which anchors, how far the ratio moved)."""
    from reports import gate, records, stats
    from reports.gate_config import Config
    o = gate.run(records.load(str(base)), records.load(str(cur)), Config())
    return [f"{rec['case']} {x.verdict} {x.metric} {x.change:+.0%} over {getattr(x, 'anchor', '-')}"
            for rec, v, comps in o.cases if v in (stats.SLOWER, stats.FASTER)
            for x in comps if x.verdict in (stats.SLOWER, stats.FASTER)]


def runs_of(out, scenario):
    """The finished runs of a scenario (runs.jsonl lists a run once it has ended)."""
    log = Path(out) / scenario / "runs.jsonl"
    done = [json.loads(x) for x in log.read_text().splitlines()] if log.is_file() else []
    return [Path(out) / scenario / f"r{d['run']}" / "records.json" for d in done if d["rc"] in (0, 1)]


def evaluate(a):
    tmp = Path(a.out) / "no-anchor"
    tmp.mkdir(exist_ok=True)
    res = {}
    for scenario in ("clean", "stress"):
        runs = runs_of(a.out, scenario)
        pairs = list(itertools.combinations(runs, 2))
        codes = [gate(b, c) for b, c in pairs]
        old = [gate(strip_anchors(b, tmp / "b.json"), strip_anchors(c, tmp / "c.json")) for b, c in pairs]
        raw = [gate(b, c, gate_raw_calls=True) for b, c in pairs]
        res[scenario] = {"runs": len(runs), "pairs": len(pairs), "exit": codes, "exit_without_anchor": old,
                         "exit_raw_calls_gated": raw,
                         "flagged": [flagged(b, c) for b, c in pairs]}
    clean, fault = runs_of(a.out, "clean"), runs_of(a.out, "fault")
    res["fault"] = {"pairs": len(clean) * len(fault), "exit": [gate(b, c) for b in clean for c in fault],
                    "exit_raw_calls_gated": [gate(b, c, gate_raw_calls=True) for b in clean for c in fault],
                    "flagged": [flagged(b, c) for b in clean for c in fault]}
    for s in ("clean", "stress", "fault"):
        p = Path(a.out) / s / "runs.jsonl"
        log = [json.loads(x) for x in p.read_text().splitlines()] if p.is_file() else []
        res[s]["load1_start"] = [x["load1_start"] for x in log]
        res[s]["load1_end"] = [x["load1_end"] for x in log]
    res["machine"] = machine(runs_of(a.out, "clean") + runs_of(a.out, "stress"))
    text = table(res)
    print(text)
    if a.write:
        Path(a.write + ".json").write_text(json.dumps(res, indent=1) + "\n")
        raw = {s: [compact(r) for r in runs_of(a.out, s)] for s in ("clean", "stress", "fault")}
        Path(a.write + "-records.json").write_text(json.dumps(raw) + "\n")
        Path(a.write + ".md").write_text(text + "\n")


def compact(run):
    """A run's raw timings, the fields the gate reads: per case the repetitions' wall and CPU
    times and its anchor's (per call), the anchor's name and calls; the load the run met."""
    doc = json.loads(Path(run).read_text())
    ctx = doc["records"][0]["context"]
    cases = {r["case"]: {"timing": {k: r["timing"][k] for k in ("samples", "cpu_samples") if k in r["timing"]},
                         "anchor": {k: r["anchor"][k] for k in ("name", "kind", "calls", "samples", "cpu_samples")
                                    if k in r["anchor"]}}
             for r in doc["records"] if r.get("timing") and r.get("anchor")}
    return {"run": str(run), "load_avg_start": ctx.get("load_avg_start"), "load_avg_end": ctx.get("load_avg_end"),
            "injected_fault": ctx.get("injected_fault"), "omp_wait_policy": ctx.get("omp_wait_policy"), "cases": cases}


def machine(runs):
    """CPU model, cores, ISA, BLAS and its threads, as the records' context has them, and the dates."""
    if not runs:
        return {}
    ctx = [json.loads(Path(r).read_text())["records"][0]["context"] for r in runs]
    keep = ("cpu_model", "cpu_cores", "isa", "blas", "blas_threads", "sgemm", "omp_wait_policy", "git_sha", "git_dirty",
            "compiler")
    return {**{k: ctx[0].get(k) for k in keep}, "first_run": min(c["date"] for c in ctx),
            "last_run_end": max(c.get("date_end", c["date"]) for c in ctx)}


def count(codes, code):
    return f"{sum(c == code for c in codes)}/{len(codes)}"


def table(res):
    rows = ["| scenario | runs (1-min load at start) | pairs | exit 2 | exit 3 | exit 0 | exit 2, blas_sgemm gated too "
            "| exit 2 without the anchor |", "|---|---|---|---|---|---|---|---|"]
    for s, what in (("clean", "A/A, machine as found"), ("stress", "A/A, stress-ng 4,0,2,6,0,4 workers"),
                    ("fault", f"clean vs {FAULT}")):
        r = res[s]
        loads = ", ".join(f"{x:.1f}" for x in r["load1_start"])
        old = count(r["exit_without_anchor"], 2) if "exit_without_anchor" in r else "—"
        raw = count(r["exit_raw_calls_gated"], 2) if "exit_raw_calls_gated" in r else "—"
        rows.append(f"| {what} | {len(r['load1_start'])} ({loads}) | {r['pairs']} | {count(r['exit'], 2)} | "
                    f"{count(r['exit'], 3)} | {count(r['exit'], 0)} | {raw} | {old} |")
    return "\n".join(rows)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--bin", required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--runs", type=int, default=6)
    c.add_argument("--scenario", choices=("clean", "stress", "fault"), required=True)
    e = sub.add_parser("evaluate")
    e.add_argument("--out", required=True)
    e.add_argument("--write", help="PREFIX: write PREFIX.md (the table) and PREFIX.json (every exit code)")
    a = p.parse_args()
    collect(a) if a.cmd == "collect" else evaluate(a)


if __name__ == "__main__":
    main()
