# The SQLite history: idempotent adds, all-or-nothing transactions, segments at history-
# breaking context changes (no alarm there), change points inside a segment, trend plots.
import json
import random
import sqlite3

from conftest import CONTEXT, rec, write

from reports import changepoint, exit_codes


def counts(db):
    with sqlite3.connect(db) as c:
        return tuple(c.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("runs", "results", "metrics"))


def nightly(tmp_path, values, compilers=None):
    """One records file per run; `values[i]` is the gflops of run i."""
    paths = []
    for i, v in enumerate(values):
        ctx = dict(CONTEXT, git_sha=f"sha{i:04d}", compiler=(compilers or {}).get(i, CONTEXT["compiler"]))
        m = [{"name": "gflops", "value": v, "unit": "GFLOP/s", "direction": "higher"}]
        paths.append(write(tmp_path / f"run{i}.json", [rec("lstm/x/cpu", [1e-3], suite="lstm", metrics=m, ctx=ctx)]))
    return paths


def test_add_is_idempotent(cli, tmp_path):
    db = tmp_path / "h.sqlite"
    path = write(tmp_path / "r.json", [rec("a", [1.0, 1.1], metrics=[{"name": "gflops", "value": 3, "unit": "GFLOP/s"}]),
                                       rec("b", None, verdict="skip")])
    assert cli("history", "add", path, "--db", db)[0] == exit_codes.PASS
    first = counts(db)
    assert first == (1, 2, 2)  # gflops + the timing median
    code, out, _ = cli("history", "add", path, "--db", db)
    assert code == exit_codes.PASS and "0 run(s) added, 1 already present" in out
    reformatted = tmp_path / "same.json"
    reformatted.write_text(json.dumps(json.loads(open(path).read()), indent=4))
    cli("history", "add", reformatted, "--db", db)
    assert counts(db) == first


def test_add_is_all_or_nothing(cli, tmp_path):
    db = tmp_path / "h.sqlite"
    good = write(tmp_path / "g.json", [rec("a")])
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "tandem.records/1", "records": [')
    assert cli("history", "add", good, bad, "--db", db)[0] == exit_codes.BAD_INPUT
    assert not db.exists() or counts(db)[0] == 0


def test_not_a_database_is_bad_input(cli, tmp_path):
    db = tmp_path / "h.sqlite"
    db.write_text("this is not sqlite, it is long enough to have a header page......................" * 20)
    code, _, err = cli("history", "add", write(tmp_path / "r.json", [rec("a")]), "--db", db)
    assert code == exit_codes.BAD_INPUT and "not a tandem history database" in err


def test_report_finds_a_drop_and_segments_at_compiler_change(cli, tmp_path):
    rng = random.Random(3)
    values = [100 * (1 + rng.uniform(-0.01, 0.01)) * (0.8 if 5 <= i < 10 else 1) * (1.5 if i >= 10 else 1)
              for i in range(15)]
    db = tmp_path / "h.sqlite"
    paths = nightly(tmp_path, values, {i: "g++ 13.1.0" for i in range(10, 15)})
    assert cli("history", "add", *paths, "--db", db)[0] == exit_codes.PASS
    code, out, _ = cli("history", "report", "--db", db, "-o", tmp_path / "rep")
    assert code == exit_codes.PASS
    summary = (tmp_path / "rep" / "summary.md").read_text()
    assert "new segment at run #11: compiler: g++ 12.2.0 → g++ 13.1.0" in summary
    rows = [line for line in summary.splitlines() if line.startswith("| regression") or line.startswith("| improvement")]
    assert len(rows) == 1 and "| regression | lstm | gflops | lstm/x/cpu | #6 |" in rows[0]  # not at #11
    png = tmp_path / "rep" / "trend_lstm_gflops.png"
    assert png.stat().st_size > 5000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compiler_change_alone_raises_no_alarm(cli, tmp_path):
    db = tmp_path / "h.sqlite"
    paths = nightly(tmp_path, [100] * 5 + [150] * 5, {i: "clang 17" for i in range(5, 10)})
    cli("history", "add", *paths, "--db", db)
    code, out, _ = cli("history", "report", "--db", db, "-o", tmp_path / "rep")
    assert code == exit_codes.PASS and "0 change points" in out


def test_report_of_missing_or_empty_history(cli, tmp_path):
    code, _, err = cli("history", "report", "--db", tmp_path / "none.sqlite", "-o", tmp_path / "rep")
    assert code == exit_codes.BAD_INPUT and "no history database" in err


def test_changepoint_detection():
    flat = [10.0, 10.1, 9.9, 10.05, 9.95, 10.0, 10.1, 9.9]
    assert changepoint.detect(flat) == []
    step = flat + [12.0, 12.1, 11.9, 12.05, 11.95]
    cps = changepoint.detect(step)
    assert [c.index for c in cps] == [8] and abs(cps[0].change - 0.2) < 0.01
    two = [1.0] * 6 + [2.0] * 6 + [1.5] * 6
    assert [c.index for c in changepoint.detect(two)] == [6, 12]
    assert changepoint.detect([1.0, 1.0, 5.0, 5.0]) == []  # too short for 3 a side
    assert changepoint.detect([10.0] * 6 + [10.2] * 6) == []  # below the 5% minimum effect


def test_segments():
    assert changepoint.segments(["a", "a", "b", "b", "a"]) == [(0, 2), (2, 4), (4, 5)]
    assert changepoint.segments([]) == []
