# What every Python tool refuses the same way (exit 4, a hint, no traceback): a benchmark.json merge cannot use, JSON
# nested just under the parser's old limit (jsonschema's message used to repr it recursively), a key twice in an object,
# a bare NaN or Infinity or a number past a double (1e999), and a passing case's time that is not > 0 (refused by the
# gate only, once: history add, merge and report stored it).
import json

import pytest
from conftest import rec, write

from reports import exit_codes

TOOLS = {
    "report": lambda f, tmp: ("report", f, "-o", tmp / "rep"),
    "merge": lambda f, tmp: ("merge", f, "-o", tmp / "m"),
    "gate": lambda f, tmp: ("gate", "--baseline", f, "--current", f),
    "history add": lambda f, tmp: ("history", "add", f, "--db", tmp / "h.sqlite"),
    "baseline": lambda f, tmp: ("baseline", "refresh", f, "--machine-kind", "k", "--root", tmp / "bl"),
}


def refused(code, err, *words):
    assert code == exit_codes.BAD_INPUT and "hint:" in err and "Traceback" not in err, err
    for w in words:
        assert w in err, err


def run_dir(tmp_path, text=None, bench='{"benchmarks": []}'):
    d = tmp_path / "run"
    d.mkdir(exist_ok=True)
    if text is None:
        write(d / "records.json", [rec("a")])
    else:
        (d / "records.json").write_text(text)
    (d / "benchmark.json").write_text(bench)
    return d / "records.json"


@pytest.mark.parametrize("bench", ['[1, 2]', '"x"', 'null', '{"benchmarks": 3}', '{"context": [], "benchmarks": []}',
                                   '{"benchmarks": [{"family_index": "0"}]}', '{"benchmarks": [{"family_index": 1.5}]}',
                                   '{"benchmarks": [{"family_index": true}]}', '{"benchmarks": [7]}'])
def test_merge_refuses_a_benchmark_json_it_cannot_use(cli, tmp_path, bench):
    code, _, err = cli("merge", run_dir(tmp_path, bench=bench).parent, "-o", tmp_path / "m")
    refused(code, err, "benchmark.json")


def nested(depth):
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("tool", sorted(TOOLS))
@pytest.mark.parametrize("depth", [150, 900, 990])
def test_deep_nesting_is_refused_by_every_tool(cli, tmp_path, tool, depth):
    r = rec("a")
    r["params"] = {"x": 1}
    text = json.dumps({"schema": "tandem.records/1", "complete": True, "records": [r]}).replace("1}", nested(depth) + "}", 1)
    code, _, err = cli(*TOOLS[tool](run_dir(tmp_path, text), tmp_path))
    refused(code, err, "levels deep")


@pytest.mark.parametrize("tool", sorted(TOOLS))
@pytest.mark.parametrize("text, words", [
    ('{"schema": "tandem.records/1", "schema": "tandem.records/1", "complete": true, "records": []}', "twice"),
    ('{"schema": "tandem.records/1", "complete": true, "records": [REC], "x": NaN}', "bare NaN"),
    ('{"schema": "tandem.records/1", "complete": true, "records": [REC], "x": -Infinity}', "bare -Infinity"),
    ('{"schema": "tandem.records/1", "complete": true, "records": [REC], "x": [Infinity]}', "bare Infinity"),
    # 1e999 parses to inf without passing parse_constant: the report's LSTM plot then set an
    # infinite axis limit (a traceback, found by reports/fuzz_cli.py report, seed 12, input 536)
    ('{"schema": "tandem.records/1", "complete": true, "records": [REC], "x": [1e999]}', "past the range of a double"),
    ('{"schema": "tandem.records/1", "complete": true, "records": [REC], "x": -1E+400}', "past the range of a double"),
])
def test_duplicate_keys_and_bare_non_finite_numbers_are_refused(cli, tmp_path, tool, text, words):
    text = text.replace("REC", json.dumps(rec("a")))
    code, _, err = cli(*TOOLS[tool](run_dir(tmp_path, text), tmp_path))
    refused(code, err, words)


@pytest.mark.parametrize("tool", sorted(TOOLS))
@pytest.mark.parametrize("bad, why", [(0.0, "not valid"), (-1.0, "not valid"), ("nan", "not a time > 0"),
                                      ("inf", "not a time > 0"), (None, "not a time > 0")])
def test_a_time_the_gate_refuses_every_tool_refuses(cli, tmp_path, tool, bad, why):
    r = rec("a")
    r["timing"]["samples"][2] = bad
    code, _, err = cli(*TOOLS[tool](run_dir(tmp_path, json.dumps({"schema": "tandem.records/1", "complete": True,
                                                                   "records": [r]})), tmp_path))
    refused(code, err, why)
    written = [p for x in ("rep", "m", "h.sqlite", "bl") for p in [tmp_path / x] if p.is_file() or p.is_dir() and
               any(p.iterdir())]  # the lock may have made an empty output folder
    assert not written, written
