# The reports on what the real binary writes: small quick runs of three suites and small nightly runs of the dot and
# lstm perf cases (filtered to seconds), `tandem report` on their records must draw every plot promised for those suites
# (so a metric renamed in C++ cannot silently empty a plot), with the series each plot promises (the LSTM's CPU kernel,
# Program path, PyTorch where python3-torch is installed, and the sgemm ceiling; dot's ratio to the BLAS call), the
# records must follow record.schema.json, and `tandem gate` on them must be SAME against itself and fail (exit 6) when a
# case vanishes, is newly skipped, or the run is killed mid-way. The PNGs are looked at by reports/screenshot_report.sh,
# not here.
import fnmatch
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reports import exit_codes, gate_anchor, records
from reports.plots import PROMISES

RUNS = {  # name → (suite, profile, --filter): cases for every promised plot, a few skipped ones
    "dot": ("dot", "quick", r"accuracy_order|M:64|alg:DEFAULT|M:17/K:33/N:9/in:f64/alg:ANY_F8"),
    "remat": ("remat", "quick", r"/(mlp|sin_chain)/"),
    "scan_hoist": ("scan_hoist", "quick", r"mode:stacked|sweep"),
    "dot_perf": ("dot", "nightly", r"perf/N:512/(blas|alg:F32_F32_F32|alg:BF16_BF16_F32_X3)"),
    "lstm_perf": ("lstm", "nightly", r"perf/infer_b1/B:1/T:100/I:512/"),
}
TORCH_SHAPE = {"label": "infer_b1", "batch": 1, "seq": 100, "input": 512, "hidden": 512, "layers": 1,
               "bidirectional": False, "train": False}  # as `lstm_cpu_bench --list-shapes` prints it
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def runs(tandem, tmp_path_factory):
    root = tmp_path_factory.mktemp("real")
    out = {}
    for name, (suite, profile, pattern) in RUNS.items():
        p = tandem("run", "-q", "--profile", profile, "-n", "5", "--suite", suite, "--filter", pattern,
                   "--out", root / name)
        assert p.returncode == 0, p.stderr
        out[name] = root / name / "records.json"
    return out


@pytest.fixture(scope="module")
def torch_records(tmp_path_factory):
    """PyTorch's nn.LSTM on the same shape as tandem records, or None without python3-torch."""
    if importlib.util.find_spec("torch") is None:
        return None
    root = tmp_path_factory.mktemp("torch")
    (root / "shapes.json").write_text(json.dumps([TORCH_SHAPE]))
    p = subprocess.run([sys.executable, ROOT / "tools" / "perf" / "torch_lstm_bench.py", "--shapes", root / "shapes.json",
                        "--threads", "1", "--reps", "3", "--records", root / "torch.json"],
                       capture_output=True, text=True, timeout=300, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    assert p.returncode == 0, p.stderr
    return root / "torch.json"


def test_records_follow_the_schema(runs):
    for path in runs.values():
        assert records.load(path)  # raises BadInput on any schema violation


def test_report_draws_every_promised_plot(tandem, runs, torch_records, tmp_path):
    extra = [torch_records] if torch_records else []
    p = tandem("report", *runs.values(), *extra, "-o", tmp_path / "rep")
    assert p.returncode == 0, p.stderr
    drawn = {f.name: f for f in (tmp_path / "rep").glob("*.png")}
    for suite in {s for s, _, _ in RUNS.values()}:
        for pattern in PROMISES[suite]:
            hits = [f for name, f in drawn.items() if fnmatch.fnmatch(name, pattern)]
            assert hits, f"{suite}: promised plot {pattern} was not drawn from real records"
            for f in hits:
                assert f.stat().st_size > 10000 and f.read_bytes()[:4] == b"\x89PNG", f
    configs = {re.sub(r"/policy:.*$", "", r["case"]) for r in records.load(runs["remat"])}
    assert len(fnmatch.filter(drawn, "remat_pareto_*.png")) == len(configs)  # one Pareto per configuration
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "not drawn" not in html and all(f'src="{name}"' in html for name in drawn)
    lstm_caption = html.split('alt="LSTM GFLOP/s')[1].split("</figcaption>")[0]
    for series in ("tandem CPU kernel", "tandem Program (scan)", "ceiling: BLAS sgemm (CPU)") + (
            ("PyTorch nn.LSTM (CPU)",) if torch_records else ()):
        assert series in lstm_caption, (series, lstm_caption)
    assert "2 preset(s) over their baseline" in html  # F32_F32_F32 and X3 against blas_sgemm


def test_quick_runs_draw_no_time_per_case_chart(tandem, runs, tmp_path):
    p = tandem("report", runs["dot"], runs["scan_hoist"], "-o", tmp_path / "q")
    assert p.returncode == 0, p.stderr
    assert not list((tmp_path / "q").glob("*time_median*.png"))
    assert "not drawn" not in (tmp_path / "q" / "index.html").read_text()  # dot_gflops is perf-only


def gate(tandem, base, current):
    return tandem("gate", "--baseline", base, "--current", current)


def test_gate_same_against_itself(tandem, runs):
    raws = {}
    for name, path in runs.items():
        p = gate(tandem, path, path)
        assert p.returncode == exit_codes.PASS, p.stdout + p.stderr
        recs = records.load(path)
        passed = sum(r["verdict"] == "pass" for r in recs)
        raw = raws[name] = len(gate_anchor.raw_calls([r for r in recs if r["verdict"] == "pass" and r.get("timing")]))
        # failed, MISSING, NEWLY SKIPPED, then SAME for every passing case but the library calls
        # other cases name as their baseline (RAW: dot_perf's blas_sgemm), and no other verdict
        assert f"| 0 | 0 | 0 | {passed - raw} | 0 | 0 | 0 | 0 | 0 | {raw} |" in p.stdout, p.stdout
    assert raws["dot_perf"] == 1, "dot_perf has blas_sgemm, which its presets name as their baseline"


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
    f8 = [r for r in doc["records"] if "alg:ANY_F8" in r["case"] and r["verdict"] == "pass"]
    assert f8, "the dot filter should select f8 cases that run on the CPU"
    why = "ANY_F8_ANY_F8_ANY is unsupported on cuda: tandem has no cuBLASLt FP8 path"
    for r in f8:  # the current run skips them, as a machine without f8 support does
        r.update(verdict="skip", message=why, metrics=[])
        r.pop("timing", None)
    (tmp_path / "cur.json").write_text(json.dumps(doc))
    p = gate(tandem, runs["dot"], tmp_path / "cur.json")
    assert p.returncode == exit_codes.INCOMPLETE, p.stdout + p.stderr
    assert f"NEWLY SKIPPED: {len(f8)} case(s)" in p.stdout and "no cuBLASLt FP8 path" in p.stdout


def test_gate_fails_on_a_killed_run(tandem, runs, tmp_path):
    """A run killed mid-way over an earlier complete run's folder: its records are valid but
    partial, and the earlier run's summary is gone."""
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
    # The new run removed the earlier run's summary.md when it started, so the
    # killed run's folder holds its partial records alone, never two runs mixed.
    assert not (folder / "summary.md").exists()
    assert "Incomplete run" in p.stdout and "did not finish" in p.stdout, p.stdout
