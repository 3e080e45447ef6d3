#!/usr/bin/env python3
"""Mutation testing of the fuzzer and the suites (docs/FUZZING.md, "Power against mutants"):
applies each source mutant of ci/mutants.py alone to the tree, rebuilds `tandem` incrementally
in a dedicated build dir, and asks who catches it: (a) `tandem fuzz --programs N`, (b) the
suites (the quick profile without collectives, the collectives at 4 ranks, the vmap
collectives at 2 ranks). The source is restored after each mutant, whatever happens. Writes one
JSON record per mutant (a line each, appended to --out as it goes) and prints the tally.

A mutant is caught by a step when the step exits non-zero (1 correctness, or a crash); exit 5
(infrastructure) is recorded apart, since a CI that retries those would let it through.
usage: ci/mutation_power.py --build build-mut --programs 3000 --out lab/records/faults/mutants-run.jsonl
       [--only ID,ID] [--steps fuzz,quick,coll4,vmapcoll2] [--seed 1] [--all-steps] [--baseline]
By default the suite steps run only on the mutants the fuzzer missed (--all-steps: on every one).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "ci"))
from mutants import MUTANTS  # noqa: E402


def steps(build, programs, seed, work):
    t = os.path.join(build, "tandem")
    mpi = [os.path.join(ROOT, "runners/launch/mpirun.sh")]
    return {
        "fuzz": [t, "fuzz", "--programs", str(programs), "--seed", str(seed), "--max-failures", "1",
                 "--out", os.path.join(work, "fuzz")],
        "quick": [t, "check", "--profile", "quick", "--exclude-suite", "collectives", "-q",
                  "--out", os.path.join(work, "quick")],
        # What a loaded 2-core machine affords per mutant: the quick profile without the dot
        # grid of shapes (B:1/B:3, 408 cases) and the LSTM suite.
        "quicksub": [t, "check", "--profile", "quick", "--exclude-suite", "collectives", "-q", "--filter",
                     "^(dot/(ties|special|input_rounding|accuracy_order)|vmap|remat|scan_hoist)/",
                     "--out", os.path.join(work, "quicksub")],
        "coll4": mpi + ["4", "check", "--profile", "quick", "--suite", "collectives", "-q",
                        "--out", os.path.join(work, "coll4")],
        "vmapcoll2": mpi + ["2", "check", "--profile", "quick", "--suite", "vmap", "--filter", "^vmap/coll/", "-q",
                            "--out", os.path.join(work, "vmapcoll2")],
    }


def failing_cases(out_dir):
    try:
        recs = json.load(open(os.path.join(out_dir, "records.json")))["records"]
    except (OSError, ValueError, KeyError):
        return []
    return [r["case"] for r in recs if r.get("verdict") in ("fail", "error")]


def run_step(name, cmd, env):
    t0 = time.time()
    p = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    rec = {"rc": p.returncode, "seconds": round(time.time() - t0, 1)}
    if name == "fuzz":
        rec["what"] = next((l for l in p.stdout.splitlines() if l.startswith("fuzz: case")), "")[:300]
    else:
        out = cmd[cmd.index("--out") + 1]
        cases = failing_cases(out)
        rec["failing"] = len(cases)
        rec["first_failing"] = cases[:3]
        if p.returncode not in (0, 1) and not cases:
            rec["tail"] = p.stdout[-400:]
    return rec


def one_mutant(m, args, env):
    mid, kind, path, old, new = m
    full = os.path.join(ROOT, path)
    src = open(full).read()
    if src.count(old) != 1:
        return {"id": mid, "kind": kind, "error": f"the text to replace occurs {src.count(old)} times in {path}"}
    rec = {"id": mid, "kind": kind, "file": path}
    try:
        open(full, "w").write(src.replace(old, new))
        t0 = time.time()
        b = subprocess.run(["cmake", "--build", args.build, "-j2", "--target", "tandem"], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        rec["build_s"] = round(time.time() - t0, 1)
        if b.returncode != 0:
            rec["error"] = "does not build: " + b.stdout[-300:]
            return rec
        with tempfile.TemporaryDirectory() as work:
            cmds = steps(args.build, args.programs, args.seed, work)
            for name in args.steps.split(","):
                # By default the suites run only where the fuzzer missed: what fuzzer + suites
                # catch is then exact, the suites' own share only where they were asked.
                if name != "fuzz" and not args.all_steps and rec.get("fuzz", {}).get("rc", 0) != 0:
                    continue
                rec[name] = run_step(name, cmds[name], env)
                print(f"  {mid} {name}: rc {rec[name]['rc']} in {rec[name]['seconds']} s", flush=True)
    finally:
        open(full, "w").write(src)
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build-mut")
    ap.add_argument("--programs", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--steps", default="fuzz,quick,coll4,vmapcoll2")
    ap.add_argument("--only", default="")
    ap.add_argument("--all-steps", action="store_true", help="run the suites on mutants the fuzzer caught too")
    ap.add_argument("--baseline", action="store_true", help="the steps on the unmutated tree (each must pass)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    env = dict(os.environ, TANDEM=os.path.join(os.path.abspath(args.build), "tandem"))
    only = set(filter(None, args.only.split(",")))
    if args.baseline:  # a no-op mutant: the unmutated tree, every step
        args.all_steps = True
        base = ("baseline", "no mutant", "ci/mutants.py", '"""The source mutants', '"""The source mutants')
        rec = one_mutant(base, args, env)
        with open(args.out, "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(json.dumps(rec)[:600], flush=True)
        return
    for m in MUTANTS:
        if only and m[0] not in only:
            continue
        rec = one_mutant(m, args, env)
        rec["programs"], rec["seed"] = args.programs, args.seed
        with open(args.out, "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(json.dumps(rec)[:400], flush=True)
    # The tree as it was: the last build matches the unmutated source again.
    subprocess.run(["cmake", "--build", args.build, "-j2", "--target", "tandem"], cwd=ROOT, stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
