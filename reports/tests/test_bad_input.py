# Bad input gets one clear `error:` line, a `hint:` and exit code 4, never a traceback;
# the exit codes hold through `python3 -m reports` as a process too.
import os
from pathlib import Path
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


def mangled(tmp_path, old, new):
    """A one-record records file with `old` (JSON text) replaced by `new`."""
    text = (tmp_path / "ok.json").read_text() if (tmp_path / "ok.json").exists() else \
        Path(write(tmp_path / "ok.json", [rec("a")])).read_text()
    assert old in text
    (tmp_path / "bad.json").write_text(text.replace(old, new, 1))
    return tmp_path / "bad.json"


# Each used to escape as a traceback (exit 5, "internal error"): RecursionError in the parser,
# ValueError/OverflowError in int→str or int→float, UnicodeEncodeError in the UTF-8 writers.
MALFORMED = {"nested": ('"params": {}', '"params": ' + "[" * 100000 + "]" * 100000, "nested"),
             "long_int": ('"median": 1.0', '"median": 1' + "0" * 5000, "integer"),
             "wide_int": ('"samples": [1.0', '"samples": [1' + "0" * 400, "integer"),
             "surrogate": ('"case": "a"', '"case": "a\\ud800"', "surrogate")}


@pytest.mark.parametrize("kind", sorted(MALFORMED))
@pytest.mark.parametrize("command", ["report", "gate", "history"])
def test_malformed_json_is_bad_input(cli, tmp_path, kind, command):
    old, new, message = MALFORMED[kind]
    path = mangled(tmp_path, old, new)
    args = {"report": ["report", path, "-o", tmp_path / "r"],
            "gate": ["gate", "--baseline", FIXTURES / "dot_small.json", "--current", path],
            "history": ["history", "add", path, "--db", tmp_path / "h.sqlite"]}[command]
    code, _, err = cli(*args)
    assert code == exit_codes.BAD_INPUT, err
    assert message in err.splitlines()[0] and "hint: " in err and "Traceback" not in err


def test_malformed_gate_config_is_bad_input(cli, tmp_path):
    good = FIXTURES / "dot_small.json"
    for text in ('{"min_effect": ' + "[" * 100000 + "]" * 100000 + "}", '{"suites": {"\\udc00": 0.1}}'):
        (tmp_path / "c.json").write_text(text)
        code, _, err = cli("gate", "--baseline", good, "--current", good, "--config", tmp_path / "c.json")
        assert code == exit_codes.BAD_INPUT and "Traceback" not in err, err


# An empty value used to mean the default (--machine-kind '') or the working directory (-o ''),
# exit 0; every option that takes a value refuses it (the Parser of reports/__main__.py).
@pytest.mark.parametrize("args", [["report", "{good}", "-o", ""], ["merge", "{tmp}", "-o", ""],
                                  ["history", "report", "--db", "{tmp}/h.sqlite", "-o", ""],
                                  ["history", "add", "{good}", "--db", ""], ["gate", "--current", "{good}", "--machine-kind", ""],
                                  ["gate", "--current", "{good}", "--baseline", "{good}", "--summary", ""],
                                  ["baseline", "show", "--machine-kind", ""]])
def test_empty_values_are_bad_input(cli, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)  # where an empty -o wrote
    code, _, err = cli(*[a.format(good=FIXTURES / "dot_small.json", tmp=tmp_path) for a in args])
    assert code == exit_codes.BAD_INPUT and "an empty value" in err and "hint: " in err, err
    assert not (tmp_path / "index.html").exists()
