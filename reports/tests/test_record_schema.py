# reports/record.schema.json is a valid JSON Schema, the records tandem writes follow it, and every entry point (report,
# gate, history add, baseline refresh) refuses a record that does not with exit 4 naming the file, the record and the
# field — never a traceback, never an installed baseline. A record whose numbers are all NaN still gets a report.
import copy
import json

import jsonschema
import pytest
from conftest import FIXTURES, rec, write

from reports import exit_codes, records


def test_schema_is_a_valid_json_schema():
    schema = json.loads(records.SCHEMA_FILE.read_text())
    jsonschema.validators.validator_for(schema).check_schema(schema)


@pytest.mark.parametrize("name", ["dot.json", "lstm.json", "remat.json", "scan_hoist.json", "collectives.json",
                                  "vmap.json", "dot_small.json"])
def test_fixtures_follow_the_schema(name):
    assert records.load(FIXTURES / name)


def good():
    return rec("dot/x/cpu", metrics=[{"name": "gflops", "value": 1.5, "unit": "GFLOP/s", "direction": "higher"}])


def broken(change):
    r = good()
    change(r)
    return r


MALFORMED = {
    "metrics is a number": (lambda r: r.update(metrics=1), "field metrics: 1 is not of type 'array'"),
    "metric without name": (lambda r: r["metrics"][0].pop("name"), "field metrics[0]: 'name' is a required property"),
    "metric value a dict": (lambda r: r["metrics"][0].update(value={}), "field metrics[0].value"),
    "bad direction": (lambda r: r["metrics"][0].update(direction="up"), "field metrics[0].direction"),
    "bad verdict": (lambda r: r.update(verdict="maybe"), "field verdict: 'maybe' is not one of"),
    "timing a string": (lambda r: r.update(timing="fast"), "field timing: 'fast' is not of type 'object'"),
    "samples not a list": (lambda r: r["timing"].update(samples=3), "field timing.samples"),
    "a time of 0 s": (lambda r: r["timing"].update(median=0), "field timing.median"),  # it was gated as "faster"
    "an anchor time of 0 s": (lambda r: r.update(anchor={"name": "canary/sgemm_128", "samples": [0]}),
                              "field anchor.samples[0]"),  # a ratio over it would be inf
    "anchor without a name": (lambda r: r.update(anchor={"samples": [1.0]}), "field anchor: 'name' is a required property"),
    "ranks a string": (lambda r: r["context"].update(ranks="two"), "field context.ranks"),
    "isa a string": (lambda r: r["context"].update(isa="avx2"), "field context.isa"),
    "unknown vector clone": (lambda r: r["context"].update(isa={"vector_clones": "sse9"}), "field context.isa.vector_clones"),
    "no case": (lambda r: r.pop("case"), "'case' is a required property"),
}


def commands(path, tmp_path):
    return {"report": ["report", path, "-o", tmp_path / "rep"],
            "gate current": ["gate", "--baseline", write(tmp_path / "base.json", [good()]), "--current", path],
            "gate baseline": ["gate", "--baseline", path, "--current", write(tmp_path / "cur.json", [good()])],
            "history add": ["history", "add", path, "--db", tmp_path / "h.sqlite"],
            "baseline refresh": ["baseline", "refresh", path, "--machine-kind", "k", "--root", tmp_path / "bl"]}


@pytest.mark.parametrize("what", sorted(MALFORMED))
@pytest.mark.parametrize("command", ["report", "gate current", "gate baseline", "history add", "baseline refresh"])
def test_malformed_record_is_bad_input_with_file_and_field(cli, tmp_path, what, command):
    change, expected = MALFORMED[what]
    path = write(tmp_path / "bad.json", [good(), broken(change)])
    code, _, err = cli(*commands(path, tmp_path)[command])
    assert code == exit_codes.BAD_INPUT, err
    first = err.splitlines()[0]
    assert first.startswith(f"error: {path}: record 1") and expected in first, first
    assert "hint:" in err and "Traceback" not in err
    assert not (tmp_path / "bl").exists() and not (tmp_path / "h.sqlite").exists()


def test_invalid_refresh_keeps_the_old_baseline(cli, tmp_path):
    ok = write(tmp_path / "ok.json", [good()])
    assert cli("baseline", "refresh", ok, "--machine-kind", "k", "--root", tmp_path / "bl")[0] == exit_codes.PASS
    before = (tmp_path / "bl" / "k" / "records.json").read_bytes()
    bad = write(tmp_path / "bad.json", [broken(lambda r: r.update(metrics=1))])
    assert cli("baseline", "refresh", bad, "--machine-kind", "k", "--root", tmp_path / "bl")[0] == exit_codes.BAD_INPUT
    assert (tmp_path / "bl" / "k" / "records.json").read_bytes() == before


def test_incomplete_run_is_never_a_baseline(cli, tmp_path):
    partial = write(tmp_path / "p.json", [good()], complete=False)
    code, _, err = cli("baseline", "refresh", partial, "--machine-kind", "k", "--root", tmp_path / "bl")
    assert code == exit_codes.BAD_INPUT and "incomplete run" in err and not (tmp_path / "bl").exists()


def test_duplicate_case_is_bad_input(cli, tmp_path):
    code, _, err = cli("report", write(tmp_path / "d.json", [good(), good()]), "-o", tmp_path / "rep")
    assert code == exit_codes.BAD_INPUT and "appears more than once" in err


@pytest.mark.parametrize("nan", [None, "nan", "inf"])
def test_nan_only_dot_records_still_get_a_report(cli, tmp_path, nan):
    recs = copy.deepcopy(records.load(FIXTURES / "dot.json"))
    for r in recs:
        r["verdict"] = "fail"  # a passing case's NaN time is refused by every tool (test_input_checks.py)
        for m in r["metrics"]:
            m["value"] = nan
        if r.get("timing"):
            r["timing"] = {"unit": "s", "median": nan, "repetitions": 3, "samples": [nan] * 3}
        for _, check in records.checks(r):
            for k in ("max_abs", "max_rel", "error_over_tolerance"):
                check[k] = nan
    code, out, err = cli("report", write(tmp_path / "nan.json", recs), "-o", tmp_path / "rep")
    assert code == exit_codes.PASS, err
    assert (tmp_path / "rep" / "index.html").stat().st_size > 0
