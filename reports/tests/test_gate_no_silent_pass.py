# The gate never passes on nothing: baseline cases missing from the current run, cases newly
# skipped, and a run that did not complete fail it with exit 6 (INCOMPLETE); an empty baseline
# is inconclusive (3); the minimum effect and alpha are fractions in (0, 1).
import argparse
import json
import os
import time

import pytest
from conftest import rec, write

from reports import exit_codes
from reports.gate_config import config_from_args

S = [1.00, 1.01, 0.99, 1.02, 0.98]
BASE = [rec("a", S), rec("b", S), rec("c", None, verdict="skip")]


def gate(cli, tmp_path, base, cur, *extra, complete=True):
    return cli("gate", "--baseline", write(tmp_path / "b.json", base),
               "--current", write(tmp_path / "c.json", cur, complete=complete), *extra)


def test_identical_runs_pass(cli, tmp_path):
    assert gate(cli, tmp_path, BASE, BASE)[0] == exit_codes.PASS


def test_missing_case_fails_with_its_own_verdict(cli, tmp_path):
    code, out, err = gate(cli, tmp_path, BASE, [rec("a", S), rec("c", None, verdict="skip")])
    assert code == exit_codes.INCOMPLETE == 6
    assert "MISSING: 1 baseline case(s) absent" in out and "- `b`: baseline verdict pass" in out
    assert "incomplete run (exit 6)" in err


def test_missing_skipped_case_fails_too(cli, tmp_path):
    code, out, _ = gate(cli, tmp_path, BASE, [rec("a", S), rec("b", S)])
    assert code == exit_codes.INCOMPLETE and "- `c`: baseline verdict skip" in out


def test_newly_skipped_case_fails(cli, tmp_path):
    cur = [rec("a", S), rec("b", None, verdict="skip"), rec("c", None, verdict="skip")]
    cur[1]["message"] = "needs a GPU"
    code, out, _ = gate(cli, tmp_path, BASE, cur)
    assert code == exit_codes.INCOMPLETE
    assert "NEWLY SKIPPED: 1 case(s) ran in the baseline, skipped now" in out and "`b`: needs a GPU" in out


def test_correctness_failure_comes_first(cli, tmp_path):
    code, _, _ = gate(cli, tmp_path, BASE, [rec("a", None, verdict="fail")])
    assert code == exit_codes.CORRECTNESS_FAILURE


def test_incomplete_comes_before_a_regression(cli, tmp_path):
    code, _, _ = gate(cli, tmp_path, BASE, [rec("a", [x * 1.3 for x in S]), rec("c", None, verdict="skip")])
    assert code == exit_codes.INCOMPLETE


def test_run_flagged_incomplete_fails(cli, tmp_path):
    code, out, _ = gate(cli, tmp_path, BASE, BASE, complete=False)
    assert code == exit_codes.INCOMPLETE and "Incomplete run" in out and '"complete": false' in out


def summary_md(folder, passed, failed=0, skipped=0, errors=0):
    (folder / "summary.md").write_text(f"# tandem summary\n\n{passed} passed, {failed} failed, {skipped} skipped, "
                                       f"{errors} errors\n")


def unflagged_run(tmp_path, recs, summary_counts):
    """A run folder as `tandem run` leaves it: records.json (no flag) and maybe summary.md."""
    run = tmp_path / "run"
    run.mkdir()
    write(run / "records.json", recs, complete=None)
    if summary_counts is not None:
        summary_md(run, *summary_counts)
    return run / "records.json"


@pytest.mark.parametrize("counts, ok", [((2, 0, 1, 0), True), (None, False), ((5, 0, 1, 0), False),
                                        ((2, 0, 0, 0), False)])
def test_completion_judged_from_summary(cli, tmp_path, counts, ok):
    cur = unflagged_run(tmp_path, BASE, counts)
    code, out, _ = cli("gate", "--baseline", write(tmp_path / "b.json", BASE), "--current", cur)
    assert code == (exit_codes.PASS if ok else exit_codes.INCOMPLETE)
    assert ok or "Incomplete run" in out


def test_stale_summary_means_incomplete(cli, tmp_path):
    cur = unflagged_run(tmp_path, BASE, (2, 0, 1, 0))
    old = time.time() - 600
    os.utime(cur.parent / "summary.md", (old, old))
    code, out, _ = cli("gate", "--baseline", write(tmp_path / "b.json", BASE), "--current", cur)
    assert code == exit_codes.INCOMPLETE and "older than records.json" in out


def test_empty_baseline_is_inconclusive(cli, tmp_path):
    code, out, _ = gate(cli, tmp_path, [], BASE)
    assert code == exit_codes.INCONCLUSIVE and "Empty baseline" in out


@pytest.mark.parametrize("flag, value, ok", [
    ("--min-effect", "5%", True), ("--min-effect", "0.05", True), ("--min-effect", "5", False),
    ("--min-effect", "0", False), ("--min-effect", "1", False), ("--min-effect", "150%", False),
    ("--min-effect", "nan", False), ("--min-effect", "-0.1", False), ("--alpha", "0.01", True),
    ("--alpha", "2", False), ("--alpha", "0", False), ("--suite-min-effect", "dot=5", False),
    ("--suite-min-effect", "dot=10%", True), ("--suite-min-effect", "program=10%", True)])
def test_fraction_options(cli, tmp_path, flag, value, ok):
    code, _, err = gate(cli, tmp_path, BASE, BASE, flag, value)
    if ok:
        assert code == exit_codes.PASS
    else:
        assert code == exit_codes.BAD_INPUT and ("out of range (0, 1)" in err or "not a fraction" in err)
        assert "hint: write a fraction in (0, 1)" in err


# A typo in a setting used to leave its default in force, silently gating with another threshold.
@pytest.mark.parametrize("flag, value, message", [
    ("--suite-min-effect", "dto=10%", "'dto' is not a tandem suite"), ("--suite-min-effect", "=10%", "'' is not a"),
    ("--config", {"min_efect": 0.1}, "unknown key 'min_efect'"), ("--config", {"suites": {"": 0.1}}, "'' is not a"),
    ("--config", {"suites": {"dot": {"min_efect": 0.1}}}, "unknown key 'min_efect'"),
    ("--config", {"suites": {"dto": 0.1}}, "'dto' is not a tandem suite"), ("--config", {"suites": [1]}, "an object")])
def test_unknown_settings_are_bad_input(cli, tmp_path, flag, value, message):
    if flag == "--config":
        (tmp_path / "g.json").write_text(json.dumps(value))
        value = tmp_path / "g.json"
    code, _, err = gate(cli, tmp_path, BASE, BASE, flag, value)
    assert code == exit_codes.BAD_INPUT and message in err and "hint: " in err, err


def test_a_programs_records_are_gated_with_its_own_threshold(cli, tmp_path):
    """`program` (the cases of --program) is a suite like the others: its threshold is taken."""
    base = [rec("program/x/cpu", S, suite="program")]
    assert gate(cli, tmp_path, base, base, "--suite-min-effect", "program=10%")[0] == exit_codes.PASS
    cfg = config_from_args(argparse.Namespace(config=None, min_effect=None, alpha=None, suite_min_effect=["program=10%"]))
    assert cfg.effect("program") == pytest.approx(0.10) and cfg.effect("dot") == cfg.min_effect
