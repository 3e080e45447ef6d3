# The reports on what the real binary writes: a small quick run of three suites (filtered to a
# few seconds), `tandem report` on its records must draw every plot promised for those suites
# (so a metric renamed in C++ cannot silently empty a plot), the records must follow
# record.schema.json, and `tandem gate` on them must be SAME against itself and fail (exit 6)
# when a case vanishes, is newly skipped, or the run is killed mid-way.
import fnmatch
import json
import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from reports import exit_codes, records
from reports.plots import PROMISES

RUNS = {  # suite → --filter: cases for every promised plot, a few skipped ones, seconds in all
    "dot": r"accuracy_order|M:64|alg:DEFAULT|M:17/K:33/N:9/in:f64/alg:ANY_F8",
    "remat": r"/(mlp|sin_chain)/",
    "scan_hoist": r"mode:stacked|sweep",
}


@pytest.fixture(scope="module")
def runs(tandem, tmp_path_factory):
    root = tmp_path_factory.mktemp("real")
    out = {}
    for suite, pattern in RUNS.items():
        p = tandem("run", "-q", "--profile", "quick", "-n", "5", "--suite", suite, "--filter", pattern,
                   "--out", root / suite)
        assert p.returncode == 0, p.stderr
        out[suite] = root / suite / "records.json"
    return out


def test_records_follow_the_schema(runs):
    for path in runs.values():
        assert records.load(path)  # raises BadInput on any schema violation


def test_report_draws_every_promised_plot(tandem, runs, tmp_path):
    p = tandem("report", *runs.values(), "-o", tmp_path / "rep")
    assert p.returncode == 0, p.stderr
    drawn = {f.name: f for f in (tmp_path / "rep").glob("*.png")}
    for suite in RUNS:
        for pattern in PROMISES[suite]:
            hits = [f for name, f in drawn.items() if fnmatch.fnmatch(name, pattern)]
            assert hits, f"{suite}: promised plot {pattern} was not drawn from real records"
            for f in hits:
                assert f.stat().st_size > 10000 and f.read_bytes()[:4] == b"\x89PNG", f
    configs = {re.sub(r"/policy:.*$", "", r["case"]) for r in records.load(runs["remat"])}
    assert len(fnmatch.filter(drawn, "remat_pareto_*.png")) == len(configs)  # one Pareto per configuration
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "not drawn" not in html and all(f'src="{name}"' in html for name in drawn)


def gate(tandem, base, current):
    return tandem("gate", "--baseline", base, "--current", current)


def test_gate_same_against_itself(tandem, runs):
    for path in runs.values():
        p = gate(tandem, path, path)
        assert p.returncode == exit_codes.PASS, p.stdout + p.stderr
        passed = sum(r["verdict"] == "pass" for r in records.load(path))
        # failed, MISSING, NEWLY SKIPPED, then SAME for every passing case and no other verdict
        assert f"| 0 | 0 | 0 | {passed} | 0 | 0 | 0 | 0 | 0 |" in p.stdout, p.stdout


def test_gate_fails_when_a_case_vanishes(tandem, runs, tmp_path):
    fewer = tmp_path / "fewer"
    p = tandem("run", "-q", "--profile", "quick", "-n", "5", "--suite", "remat", "--filter", "/mlp/", "--out", fewer)
    assert p.returncode == 0, p.stderr
    vanished = {r["case"] for r in records.load(runs["remat"])} - {r["case"] for r in records.load(fewer / "records.json")}
    assert vanished and any("sin_chain" in c for c in vanished)
    p = gate(tandem, runs["remat"], fewer / "records.json")
    assert p.returncode == exit_codes.INCOMPLETE, p.stdout + p.stderr
    assert f"MISSING: {len(vanished)} baseline case(s) absent" in p.stdout and "sin_chain" in p.stdout


def test_gate_fails_on_a_newly_skipped_case(tandem, runs, tmp_path):
    doc = json.loads(runs["dot"].read_text())
    skipped = [r for r in doc["records"] if r["verdict"] == "skip"]
    assert skipped, "the dot filter should select cases the CPU skips"
    base = next(r for r in doc["records"] if r["verdict"] == "pass")
    for r in skipped:  # a baseline in which the skipped cases ran (as on a machine that has f8)
        r.update(verdict="pass", message="", metrics=base["metrics"], timing=base["timing"])
    (tmp_path / "base.json").write_text(json.dumps(doc))
    p = gate(tandem, tmp_path / "base.json", runs["dot"])
    assert p.returncode == exit_codes.INCOMPLETE, p.stdout + p.stderr
    assert f"NEWLY SKIPPED: {len(skipped)} case(s)" in p.stdout and "needs f8 storage" in p.stdout


def test_gate_fails_on_a_killed_run(tandem, runs, tmp_path):
    """A run killed mid-way over an earlier complete run's folder: its records are valid but
    partial and the summary beside them is the earlier run's."""
    folder = tmp_path / "run"
    shutil.copytree(runs["dot"].parent, folder)
    cmd = [os.environ["TANDEM_BIN"], "run", "-q", "--profile", "quick", "-n", "20", "--suite", "dot", "--out", folder]
    old_stamp = (folder / "records.json").stat().st_mtime_ns
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    try:
        # Kill as soon as the new run has replaced the old records once (it rewrites them after
        # every case, so they are valid but partial); polling a count instead misses the window
        # on a quiet machine, where a hundred fast cases land between two polls.
        while time.time() < deadline and proc.poll() is None:
            try:
                if (folder / "records.json").stat().st_mtime_ns != old_stamp:
                    break
            except OSError:
                pass
            time.sleep(0.005)
        assert proc.poll() is None, "the run finished before it could be killed; select more cases"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    p = gate(tandem, runs["dot"], folder / "records.json")
    assert p.returncode == exit_codes.INCOMPLETE, p.stdout + p.stderr
    assert "Incomplete run" in p.stdout and "killed mid-way" in p.stdout
