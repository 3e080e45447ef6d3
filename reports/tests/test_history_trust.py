# The history CI can trust: `history report` exits 2 while a regression is open at the newest
# run; `history add` refuses another application's SQLite file and names a corrupt page
# instead of blaming the disk, and a read-only one the permissions; bad option values are bad input.
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys

import pytest
from conftest import CONTEXT, ROOT, rec, write

from reports import exit_codes, history_db


def nightly(tmp_path, values):
    paths = []
    for i, v in enumerate(values):
        m = [{"name": "gflops", "value": v * (1 + 0.002 * (i % 3)), "unit": "GFLOP/s", "direction": "higher"}]
        ctx = dict(CONTEXT, git_sha=f"sha{i:04d}")
        paths.append(write(tmp_path / f"run{i}.json", [rec("lstm/x/cpu", [1e-3], suite="lstm", metrics=m, ctx=ctx)]))
    return paths


def report(cli, tmp_path, values, *extra):
    db = tmp_path / "h.sqlite"
    assert cli("history", "add", *nightly(tmp_path, values), "--db", db)[0] == exit_codes.PASS
    return cli("history", "report", "--db", db, "-o", tmp_path / "rep", *extra)


def test_open_regression_at_newest_run_exits_2(cli, tmp_path):
    code, _, err = report(cli, tmp_path, [100] * 6 + [80] * 6)
    assert code == exit_codes.PERFORMANCE_REGRESSION
    assert "regression at the newest run: lstm/x/cpu gflops -20.0% since run #7" in err


def test_recovered_regression_passes(cli, tmp_path):
    code, out, _ = report(cli, tmp_path, [100] * 6 + [80] * 6 + [90] * 6)
    assert code == exit_codes.PASS and "1 regressions" in out


def test_improvement_passes(cli, tmp_path):
    assert report(cli, tmp_path, [100] * 6 + [130] * 6)[0] == exit_codes.PASS


@pytest.mark.parametrize("flag, value", [("--min-size", "0"), ("--min-size", "-2"), ("--alpha", "2"),
                                         ("--min-effect", "0"), ("--min-size", "x")])
def test_bad_option_values(cli, tmp_path, flag, value):
    code, _, err = report(cli, tmp_path, [100] * 3, flag, value)
    assert code == exit_codes.BAD_INPUT and "hint:" in err


def test_new_database_is_stamped(cli, tmp_path):
    db = tmp_path / "h.sqlite"
    cli("history", "add", write(tmp_path / "r.json", [rec("a")]), "--db", db)
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA application_id").fetchone()[0] == history_db.APPLICATION_ID


def tables(db):
    with sqlite3.connect(db) as c:
        return {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}


@pytest.mark.parametrize("setup, message, left", [
    ("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT)", "not a tandem history database (it holds tables users)",
     {"users"}),
    ("PRAGMA application_id = 1234", "application_id 0x4d2", set())])
def test_foreign_database_is_refused_untouched(cli, tmp_path, setup, message, left):
    db = tmp_path / "app.sqlite"
    with sqlite3.connect(db) as c:
        c.execute(setup)
    code, _, err = cli("history", "add", write(tmp_path / "r.json", [rec("a")]), "--db", db)
    assert code == exit_codes.BAD_INPUT and message in err
    assert tables(db) == left  # nothing of tandem's was written into it


def test_corrupt_page_is_named_not_blamed_on_the_disk(cli, tmp_path):
    db = tmp_path / "h.sqlite"
    many = [rec(f"dot/case{i:04d}/cpu", [1e-3]) for i in range(400)]
    assert cli("history", "add", write(tmp_path / "r.json", many), "--db", db)[0] == exit_codes.PASS
    with sqlite3.connect(db) as c:
        page = c.execute("PRAGMA page_size").fetchone()[0]
        assert c.execute("PRAGMA page_count").fetchone()[0] > 6
    data = bytearray(db.read_bytes())
    data[4 * page:5 * page] = bytes((i * 37 + 11) % 256 for i in range(page))  # garbage over page 5
    db.write_bytes(bytes(data))
    for args in (["add", write(tmp_path / "s.json", [rec("b")])], ["report", "-o", tmp_path / "rep"]):
        code, _, err = cli("history", *args, "--db", db)
        assert code == exit_codes.BAD_INPUT, err
        assert "history database is corrupt" in err and "disk space" not in err and "Traceback" not in err


def test_schema_text_not_utf8_is_corrupt(cli, tmp_path):
    """SQLite quotes the broken schema in its error; Python used to fail decoding that (exit 5)."""
    db = tmp_path / "h.sqlite"
    assert cli("history", "add", write(tmp_path / "r.json", [rec("a")]), "--db", db)[0] == exit_codes.PASS
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA writable_schema=ON")
        c.execute("UPDATE sqlite_master SET sql=CAST(x'435245415445205441424c45ff' AS TEXT) WHERE name='results'")
    for args in (["add", write(tmp_path / "s.json", [rec("b")])], ["report", "-o", tmp_path / "rep"]):
        code, _, err = cli("history", *args, "--db", db)
        assert code == exit_codes.BAD_INPUT and "history database is corrupt" in err and "Traceback" not in err, err


def read_only_history(db, *args):
    """`history ARGS` in a subprocess whose history folder is really read-only: chmod for a user;
    root ignores modes, so there a read-only bind mount in a private mount namespace."""
    cmd = [sys.executable, "-m", "reports", "history", *map(str, args)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if os.geteuid() != 0:
        db.chmod(0o444)
        db.parent.chmod(0o555)
        try:
            return subprocess.run(cmd, env=env, capture_output=True, text=True)
        finally:
            db.parent.chmod(0o755)
    if not shutil.which("unshare") or subprocess.run(["unshare", "--mount", "true"]).returncode:
        pytest.skip("root ignores file modes and `unshare --mount` is not allowed here")
    folder = shlex.quote(str(db.parent))
    return subprocess.run(["unshare", "--mount", "sh", "-c", f"mount --bind -o ro {folder} {folder} && exec "
                           + shlex.join(cmd)], env=env, capture_output=True, text=True)


@pytest.mark.parametrize("exists", [True, False])
def test_read_only_history_is_a_permission_error_not_corruption(cli, tmp_path, exists):
    folder = tmp_path / "hist"
    folder.mkdir()
    db = folder / "h.sqlite"
    if exists:
        assert cli("history", "add", write(tmp_path / "r.json", [rec("a")]), "--db", db)[0] == exit_codes.PASS
    p = read_only_history(db, "add", write(tmp_path / "s.json", [rec("b")]), "--db", db)
    assert p.returncode == exit_codes.INFRASTRUCTURE_ERROR, p.stderr
    assert "cannot write the history database" in p.stderr and "permissions" in p.stderr and "corrupt" not in p.stderr
