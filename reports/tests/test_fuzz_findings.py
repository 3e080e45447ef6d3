# What reports/fuzz.py found, each once a traceback or an exit 5 "check the disk": a history whose rows or schema
# history add never writes is corrupt (exit 4), and extreme metric values keep the change-point test finite.
import sqlite3

import pytest
from conftest import rec, write

from reports import changepoint, exit_codes, history_db

BROKEN = {"text not UTF-8": "UPDATE runs SET added_at=CAST(x'ff41' AS TEXT)",
          "breaking not JSON": "UPDATE runs SET breaking='{\"a'", "breaking a list": "UPDATE runs SET breaking='[1]'",
          "column renamed": "ALTER TABLE runs RENAME COLUMN git_sha TO g", "value text": "UPDATE metrics SET value='x'"}


@pytest.mark.parametrize("sql", BROKEN.values(), ids=BROKEN.keys())
def test_broken_history_rows_are_corrupt(cli, tmp_path, sql):
    db, m = tmp_path / "h.sqlite", [{"name": "gflops", "value": 1.0, "unit": "GFLOP/s", "direction": "higher"}]
    assert cli("history", "add", write(tmp_path / "r.json", [rec(metrics=m)]), "--db", db)[0] == exit_codes.PASS
    with sqlite3.connect(db) as c:
        c.execute(sql)
    commands = [["report", "-o", tmp_path / "rep"]] + [["add", write(tmp_path / "s.json", [rec("b")])]] * ("RENAME" in sql)
    for args in commands:  # add used to fail mid-insert: "no column named git_sha", exit 5
        code, _, err = cli("history", *args, "--db", db)
        assert code == exit_codes.BAD_INPUT and "history database is corrupt" in err, err


def test_out_of_memory_opening_is_corruption(cli, tmp_path, monkeypatch):  # SQLITE_NOMEM: a corrupt size
    db = tmp_path / "h.sqlite"
    assert cli("history", "add", write(tmp_path / "r.json", [rec()]), "--db", db)[0] == exit_codes.PASS

    def nomem(*_, **__):
        raise MemoryError()
    monkeypatch.setattr(history_db, "claim", nomem)
    code, _, err = cli("history", "report", "--db", db, "-o", tmp_path / "rep")
    assert code == exit_codes.BAD_INPUT and "history database is corrupt" in err, err


def test_out_of_memory_checking_is_corruption():
    class Conn:
        def execute(self, sql):
            raise MemoryError()
    assert history_db.integrity_problems(Conn()) == ["SQLite ran out of memory checking it"]


def test_huge_values_of_both_signs_give_a_p_value():  # Welch's test squared 1e300: OverflowError
    assert changepoint.welch_p([-1e300, -1e300, 1e300], [1e300, 1e299, 1e300]) >= 0
    changepoint.detect([-1e300] * 3 + [1e300] * 3)
