#!/usr/bin/env python3
# CI's exercise of the gate, run by ctest as `gate_exercise`: a quick `tandem run` of a few suites, gated against the
# committed baseline of this machine kind (restricted to those suites), must pass the gate's correctness part; and
# tampered copies of the run must make the same gate fail with the documented exit codes, so a gate broken into passing
# everything fails CI.
#
# Correctness part: the gate's exit codes rank correctness failure (1) above incomplete (6) above regression (2) above
# inconclusive (3), so "exit 0, 2 or 3" means no failed case and no baseline case missing or newly skipped, whatever the
# timings did. Timings are not judged here: on a shared 2-core CI machine they are noise, and this run takes one
# repetition (the gate calls that inconclusive, deterministically). ci/gate.sh is the full gate.
#
# Usage: python3 -P ci/gate_exercise.py --tandem BUILD/tandem [--suites dot,scan_hoist]
#        [--machine-kind KIND] [--work DIR]
import argparse
import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFRESH = "ci/refresh_baseline.sh"  # the one command that remakes the committed baseline
OK_CORRECTNESS = (0, 2, 3)


def fail(msg):
    print(f"gate_exercise: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def tandem(args, exe, **kw):
    return subprocess.run([exe, *args], capture_output=True, text=True, **kw)


def write(path, doc):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def gate(exe, current, base):
    # --allow-cross-cpu: the committed baseline was recorded on one CPU and the exercise judges no
    # timings, so it holds on every CPU (the refusal itself: reports/tests/test_gate_cross_cpu.py).
    p = tandem(["gate", "--current", str(current), "--baseline", str(base), "--allow-cross-cpu"], exe)
    return p.returncode, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser(description="exercise tandem gate on a real quick run")
    ap.add_argument("--tandem", required=True)
    ap.add_argument("--suites", default="dot,scan_hoist", help="comma-separated suites to run (quick profile)")
    ap.add_argument("--machine-kind", help="baseline folder (default: TANDEM_MACHINE_KIND or derived from the run)")
    ap.add_argument("--work", help="folder for the run and the tampered copies (default: a temporary one)")
    a = ap.parse_args()
    work = Path(a.work or tempfile.mkdtemp(prefix="gate_exercise."))
    suites = [s for s in a.suites.split(",") if s]
    run_dir = work / "run"
    # One run over several suites: --suite takes one, so a filter on the names' suite prefix.
    cmd = ["run", "-q", "--profile", "quick", "-n", "1", "--out", str(run_dir),
           "--filter", "^(" + "|".join(suites) + ")/"]
    p = tandem(cmd, a.tandem)
    if p.returncode not in (0, 1):  # a correctness failure still goes through the gate below
        fail(f"`tandem {' '.join(cmd)}` exited {p.returncode}:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    current = run_dir / "records.json"
    doc = json.loads(current.read_text(encoding="utf-8"))

    show = ["baseline", "show", str(current)] + (["--machine-kind", a.machine_kind] if a.machine_kind else [])
    p = tandem(show, a.tandem)
    if p.returncode != 0:
        fail(f"`tandem {' '.join(show)}` exited {p.returncode}: {p.stderr.strip()}")
    kind, base_path, state = p.stdout.strip().split("\t")
    if state != "present":
        fail(f"no committed baseline for machine kind {kind} ({base_path}); make one with `{REFRESH} {kind}`")
    base_doc = json.loads(Path(base_path).read_text(encoding="utf-8"))
    base_doc["records"] = [r for r in base_doc["records"] if r["suite"] in suites]
    base = write(work / "baseline" / "records.json", base_doc)

    # 1. The real run against the committed baseline: the correctness part must pass, and
    #    the case lists must agree (a case the baseline lacks is never gated).
    hint = (f"if cases were added, renamed or removed on purpose, refresh the baseline on a {kind} "
            f"machine with `{REFRESH} {kind}` (see reports/baselines/README.md) and commit it")
    rc, out = gate(a.tandem, current, base)
    if rc not in OK_CORRECTNESS:
        fail(f"the gate of this run against {base_path} exited {rc} (0, 2 or 3 expected); {hint}\n{out[-4000:]}")
    names = {r["case"] for r in doc["records"]}
    new = sorted(names - {r["case"] for r in base_doc["records"]})
    if new:
        fail(f"{len(new)} case(s) of this run are not in the baseline, so the gate never compares them "
             f"(e.g. {new[0]}); {hint}")
    print(f"real run: {len(names)} cases of {','.join(suites)} vs {base_path}: gate exit {rc}")

    # 2. Tampered copies of the same run must fail the gate with the documented codes.
    passed = [r for r in doc["records"] if r["verdict"] == "pass"]
    if not passed:
        fail("no passing case to tamper with")
    victim = passed[len(passed) // 2]["case"]

    def tampered(tag, change):
        d = copy.deepcopy(doc)
        d["records"] = [x for x in (change(copy.deepcopy(r)) if r["case"] == victim else r for r in d["records"]) if x]
        return write(work / tag / "records.json", d)

    def skipped(r):
        r.update(verdict="skip", message="tampered: skipped by gate_exercise")
        return r

    def failed(r):
        r.update(verdict="fail", message="tampered: failed by gate_exercise")
        return r

    for tag, change, want in (("removed", lambda r: None, 6), ("skipped", skipped, 6), ("failed", failed, 1)):
        rc, out = gate(a.tandem, tampered(tag, change), base)
        if rc != want or victim not in out:
            fail(f"case {victim} {tag}: the gate exited {rc} (want {want}) "
                 f"{'and named the case' if victim in out else 'without naming the case'}\n{out[-3000:]}")
        print(f"tampered ({tag} {victim}): gate exit {rc} as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
