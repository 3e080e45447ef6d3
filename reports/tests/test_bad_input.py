# Bad input gets one clear `error:` line, a `hint:` and exit code 4, never a traceback;
# the exit codes hold through `python3 -m reports` as a process too.
import os
import subprocess
import sys

import pytest
from conftest import FIXTURES, ROOT, rec, write

from reports import exit_codes

BROKEN = {"truncated.json": "truncated JSON", "malformed.json": "malformed JSON at line 1",
          "schema_v2.json": "schema version mismatch", "missing.json": "no such records file"}


@pytest.mark.parametrize("name", sorted(BROKEN))
@pytest.mark.parametrize("command", ["report", "gate", "history"])
def test_broken_records(cli, tmp_path, name, command):
    path = FIXTURES / name
    args = {"report": ["report", path, "-o", tmp_path / "r"],
            "gate": ["gate", "--baseline", FIXTURES / "dot_small.json", "--current", path],
            "history": ["history", "add", path, "--db", tmp_path / "h.sqlite"]}[command]
    code, out, err = cli(*args)
    assert code == exit_codes.BAD_INPUT
    first, hint = err.strip().splitlines()[:2]
    assert first.startswith("error: ") and BROKEN[name] in first and hint.strip().startswith("hint: ")
    assert "Traceback" not in err


def test_broken_baseline(cli, tmp_path):
    code, _, err = cli("gate", "--baseline", FIXTURES / "truncated.json", "--current", FIXTURES / "dot_small.json")
    assert code == exit_codes.BAD_INPUT and "truncated JSON" in err


def test_other_bad_input(cli, tmp_path):
    good = FIXTURES / "dot_small.json"
    not_records = write(tmp_path / "x.json", [])
    (tmp_path / "x.json").write_text('{"hello": 1}')
    assert cli("report", not_records, "-o", tmp_path / "r")[0] == exit_codes.BAD_INPUT
    bad_verdict = rec("a", verdict="maybe")
    assert cli("report", write(tmp_path / "v.json", [bad_verdict]), "-o", tmp_path / "r")[0] == exit_codes.BAD_INPUT
    assert cli("gate", "--baseline", good, "--current", good, "--min-effect", "lots")[0] == exit_codes.BAD_INPUT
    assert cli("gate", "--current", good, "--frobnicate")[0] == exit_codes.BAD_INPUT  # not argparse's 2
    assert cli("gate", "--baseline", good, "--current", good, "--config", tmp_path / "none.json")[0] == exit_codes.BAD_INPUT
    assert cli("nonsense")[0] == exit_codes.BAD_INPUT


def test_exit_codes_through_the_process(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    slow = write(tmp_path / "slow.json", [rec("a", [x * 1.2 for x in (1.0, 1.01, 0.99, 1.02, 0.98)])])
    base = write(tmp_path / "base.json", [rec("a")])
    run = lambda *a: subprocess.run([sys.executable, "-m", "reports", *map(str, a)], env=env, capture_output=True, text=True)
    assert run("gate", "--baseline", base, "--current", base).returncode == exit_codes.PASS
    assert run("gate", "--baseline", base, "--current", slow).returncode == exit_codes.PERFORMANCE_REGRESSION
    p = run("gate", "--baseline", tmp_path / "nope.json", "--current", base)
    assert p.returncode == exit_codes.BAD_INPUT and p.stderr.startswith("error: ")
    assert run("--help").returncode == 0


def test_exit_codes_match_the_cli_header():
    header = (ROOT / "common" / "exit_codes.h")
    if not header.exists():
        pytest.skip("common/exit_codes.h not in this tree")
    text = header.read_text()
    for name, value in [("pass", 0), ("correctness_failure", 1), ("performance_regression", 2), ("inconclusive", 3),
                        ("bad_input", 4), ("infrastructure_error", 5), ("incomplete", 6)]:
        assert f"{name} = {value};" in text
        assert getattr(exit_codes, name.upper()) == value


def test_unwritable_output_is_an_infrastructure_error(cli, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the report folder should go")
    code, _, err = cli("report", FIXTURES / "vmap.json", "-o", blocker / "sub")
    assert code == exit_codes.INFRASTRUCTURE_ERROR and err.startswith("error: ")
