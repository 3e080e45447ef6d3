# Incomplete runs, bad timings, a large run's report, merge -o and read-only history: incomplete or failed runs stay out
# of the history, times <= 0 or NaN are bad input to the gate, no output over an input, the dot error plot stays linear.
import fnmatch
import json
import os
import shutil
import sqlite3
import subprocess

import pytest
from conftest import FIXTURES, ROOT, rec, write
from test_history_trust import read_only_history

from reports import exit_codes

S = [1.00, 1.01, 0.99, 1.02, 0.98]


@pytest.mark.parametrize("complete", [False, None])  # "complete": false; no flag and no summary.md (killed)
def test_history_refuses_an_incomplete_run(cli, tmp_path, complete):
    records, db = write(tmp_path / "r.json", [rec("a", S)], complete=complete), tmp_path / "h.sqlite"
    code, _, err = cli("history", "add", records, "--db", db)
    assert code == exit_codes.BAD_INPUT and "incomplete run" in err and "--allow-incomplete" in err and not db.exists()
    assert cli("history", "add", records, "--db", db, "--allow-incomplete")[0] == exit_codes.PASS
    with sqlite3.connect(db) as c:
        assert "did not" in json.loads(c.execute("SELECT info FROM runs").fetchone()[0])["incomplete"]


def test_report_calls_out_an_incomplete_run(cli, tmp_path):
    code, _, err = cli("report", write(tmp_path / "r.json", [rec("a", S)], complete=False), "-o", tmp_path / "rep")
    assert code == exit_codes.PASS and "warning: INCOMPLETE RUN" in err
    assert "INCOMPLETE RUN" in (tmp_path / "rep" / "summary.md").read_text().split("Records:")[0]
    assert "Incomplete run" in (tmp_path / "rep" / "index.html").read_text()


STUBS = {"ci/offline_env.sh": "", "ci/install_deps.sh": "", "ci/build.sh": "", "bin/mpirun": "",
         "runners/launch/mpirun.sh": 'shift; exec "$TANDEM" "$@"',  # tandem logs its command, fails where --out matches $FAIL
         "build/tandem": 'echo "$*" >> "$LOG"; out=; prev=\nfor a; do [ "$prev" = --out ] && out=$a; prev=$a; done\n'
                         '[ -z "$out" ] || { mkdir -p "$out"; echo {} > "$out/records.json"; }\n'
                         'case "$1:$out" in run:$FAIL|collectives:$FAIL) exit 1;; esac'}


@pytest.mark.parametrize("fail", ["*/collectives-np4", "*/nightly/*-[0-9][0-9]", "*/perf-np2", "*"])
def test_nightly_keeps_a_failed_run_out_of_the_history(tmp_path, fail):
    for path, body in STUBS.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("#!/bin/sh\n" + body + "\n")
        (tmp_path / path).chmod(0o755)
    shutil.copy(ROOT / "ci" / "nightly.sh", tmp_path / "ci")
    env = dict(os.environ, LOG=str(tmp_path / "log"), FAIL=fail, BUILD_DIR=str(tmp_path / "build"), NIGHTLY_FAULTS="0",
               NIGHTLY_SANITIZE="0", NIGHTLY_GPU_REHEARSAL="0", NIGHTLY_CLUSTER="0", PATH=f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    p = subprocess.run(["bash", str(tmp_path / "ci" / "nightly.sh")], env=env, capture_output=True, text=True)
    assert p.returncode == 1 and "NOT adding" in p.stderr, p.stderr
    log = (tmp_path / "log").read_text().splitlines()
    outs = [line.split("--out ")[1].split()[0] for line in log if "--out " in line]
    added = [line.split()[2] for line in log if line.startswith("history add")]
    assert len(outs) == 4 and added == [f"{o}/records.json" for o in outs if not fnmatch.fnmatch(o, fail)]
    assert len(added) == (0 if fail == "*" else 3), added


@pytest.mark.parametrize("where", ["samples", "median", "cpu_samples", "metric"])
@pytest.mark.parametrize("bad", [0.0, -1e-3, None, "nan", "inf"])
@pytest.mark.parametrize("side", ["--current", "--baseline", "--current-runs"])
def test_gate_refuses_a_time_not_above_zero(cli, tmp_path, where, bad, side):
    broken = rec("dot/x/cpu", S, metrics=[{"name": "time_median", "value": 1.0, "unit": "s", "direction": "lower"}])
    t = broken["timing"] = dict(broken["timing"], cpu_samples=list(S))
    at, key = {"samples": (t["samples"], 1), "cpu_samples": (t["cpu_samples"], 1), "median": (t, "median"),
               "metric": (broken["metrics"][0], "value")}[where]
    at[key] = bad
    g, b = write(tmp_path / "good.json", [rec("dot/x/cpu", S)]), write(tmp_path / "bad.json", [broken])
    args = {"--current": ["--baseline", g, "--current", b], "--baseline": ["--baseline", b, "--current", g],
            "--current-runs": ["--baseline-runs", g, g, "--current-runs", b]}[side]
    code, _, err = cli("gate", *args)
    assert code == exit_codes.BAD_INPUT and "dot/x/cpu" in err and "hint:" in err, err


def test_merge_into_one_of_its_parts_is_refused(cli, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for part in (a, b):
        part.mkdir()
        write(part / "records.json", [rec(f"dot/{part.name}/cpu", S)])
        (part / "benchmark.json").write_text('{"benchmarks": []}')
    before = (a / "records.json").read_bytes()
    for out, inputs in ((a, [a, b]), (tmp_path / "." / "a", [a / "records.json", b])):
        code, _, err = cli("merge", *inputs, "-o", out)
        assert code == exit_codes.BAD_INPUT and "never writes over" in err and "hint:" in err, err
    assert (a / "records.json").read_bytes() == before and cli("merge", a, b, "-o", tmp_path / "m")[0] == 0


def test_history_report_reads_a_read_only_history(cli, tmp_path):
    db = tmp_path / "hist" / "h.sqlite"
    assert cli("history", "add", write(tmp_path / "r.json", [rec("a")]), "--db", db)[0] == exit_codes.PASS
    p = read_only_history(db, "report", "--db", db, "-o", tmp_path / "rep")
    assert p.returncode == exit_codes.PASS and (tmp_path / "rep" / "index.html").is_file(), p.stderr


def test_dot_error_plot_draws_a_few_collections_for_many_cases(tmp_path, monkeypatch):
    """One collection per case made a 43,488-record report run past 600 s."""
    from reports.plots import dot, style

    many = [dict(r, case=f"{r['case']}#{i}") for i in range(20) for r in json.loads((FIXTURES / "dot.json").read_text())["records"]]
    drawn = {}
    monkeypatch.setattr(style, "save", lambda fig, *a: drawn.update({ax: len(ax.collections) for ax in fig.axes}))
    dot.error_per_algorithm(many, tmp_path)
    assert drawn and max(drawn.values()) <= 6, drawn
