# The gate end to end through the CLI: verdicts, correctness first, direction, overrides,
# exit codes, the markdown summary, and baselines found by machine kind.
import json

from conftest import rec, write

from reports import exit_codes

S = [1.00, 1.01, 0.99, 1.02, 0.98]


def gate(cli, tmp_path, base, cur, *extra):
    return cli("gate", "--baseline", write(tmp_path / "b.json", base), "--current", write(tmp_path / "c.json", cur), *extra)


def test_same_run_passes(cli, tmp_path):
    code, out, _ = gate(cli, tmp_path, [rec("a", S), rec("b", S)], [rec("a", S), rec("b", S)])
    assert code == exit_codes.PASS and "✅ pass" in out


def test_slower_copy_is_a_regression(cli, tmp_path):
    code, out, _ = gate(cli, tmp_path, [rec("a", S), rec("b", S)], [rec("a", [x * 1.2 for x in S]), rec("b", S)])
    assert code == exit_codes.PERFORMANCE_REGRESSION
    assert "| a | SLOWER | time |" in out and "+20.0%" in out


def test_correctness_first(cli, tmp_path):
    cur = [rec("a", [x * 1.2 for x in S]), rec("b", None, verdict="fail")]
    code, out, _ = gate(cli, tmp_path, [rec("a", S), rec("b", S)], cur)
    assert code == exit_codes.CORRECTNESS_FAILURE and "Correctness failures (1)" in out


def test_errored_case_fails_correctness(cli, tmp_path):
    code, _, _ = gate(cli, tmp_path, [rec("a", S)], [rec("a", None, verdict="error")])
    assert code == exit_codes.CORRECTNESS_FAILURE


def test_two_repetitions_are_inconclusive(cli, tmp_path):
    code, out, _ = gate(cli, tmp_path, [rec("a", [1.0, 1.01])], [rec("a", [1.3, 1.31])])
    assert code == exit_codes.INCONCLUSIVE and "INCONCLUSIVE" in out


def test_no_case_in_common_is_incomplete(cli, tmp_path):
    code, out, _ = gate(cli, tmp_path, [rec("a", S)], [rec("b", S)])
    assert code == exit_codes.INCOMPLETE and "MISSING: 1 baseline case(s) absent" in out


def test_sampled_metric_uses_its_direction(cli, tmp_path):
    def with_gflops(scale):
        return rec("a", None, metrics=[{"name": "gflops", "value": 100 * scale, "unit": "GFLOP/s", "direction": "higher",
                                        "samples": [x * 100 * scale for x in S]}])
    assert gate(cli, tmp_path, [with_gflops(1)], [with_gflops(1.2)])[0] == exit_codes.PASS
    code, out, _ = gate(cli, tmp_path, [with_gflops(1)], [with_gflops(0.8)])
    assert code == exit_codes.PERFORMANCE_REGRESSION and "| a | SLOWER | gflops |" in out


def test_deterministic_metric_regression(cli, tmp_path):
    def with_peak(v):
        return rec("a", S, suite="remat", metrics=[{"name": "peak_bytes", "value": v, "unit": "B", "direction": "lower"}])
    code, out, _ = gate(cli, tmp_path, [with_peak(1000)], [with_peak(1200)])
    assert code == exit_codes.PERFORMANCE_REGRESSION and "WORSE" in out
    assert gate(cli, tmp_path, [with_peak(1000)], [with_peak(800)])[0] == exit_codes.PASS


def test_more_saved_residuals_is_worse(cli, tmp_path):
    # The remat suite's saved count and bytes: saving more is a regression, fewer a gain (the
    # suite's own check fails a residual its policy does not permit, below any min effect).
    def saving(n, b):
        return rec("a", S, suite="remat", metrics=[{"name": "residuals", "value": n, "unit": "count", "direction": "lower"},
                                                   {"name": "residual_bytes", "value": b, "unit": "B", "direction": "lower"}])
    code, out, _ = gate(cli, tmp_path, [saving(4, 512)], [saving(8, 1024)])
    assert code == exit_codes.PERFORMANCE_REGRESSION
    assert "| a | WORSE | residuals |" in out and "| a | WORSE | residual_bytes |" in out
    assert gate(cli, tmp_path, [saving(8, 1024)], [saving(4, 512)])[0] == exit_codes.PASS


def test_rate_metric_without_samples_follows_timing(cli, tmp_path):
    m = [{"name": "gflops", "value": 100, "unit": "GFLOP/s", "direction": "higher"}]
    m2 = [{"name": "gflops", "value": 90, "unit": "GFLOP/s", "direction": "higher"}]
    assert gate(cli, tmp_path, [rec("a", S, metrics=m)], [rec("a", S, metrics=m2)])[0] == exit_codes.PASS


def test_per_suite_min_effect(cli, tmp_path):
    base, cur = [rec("a", S)], [rec("a", [x * 1.08 for x in S])]
    assert gate(cli, tmp_path, base, cur)[0] == exit_codes.PERFORMANCE_REGRESSION
    assert gate(cli, tmp_path, base, cur, "--suite-min-effect", "dot=10%")[0] == exit_codes.PASS
    assert gate(cli, tmp_path, base, cur, "--suite-min-effect", "lstm=10%")[0] == exit_codes.PERFORMANCE_REGRESSION
    cfg = tmp_path / "gate.json"
    cfg.write_text(json.dumps({"min_effect": 0.05, "suites": {"dot": {"min_effect": 0.1}}}))
    assert gate(cli, tmp_path, base, cur, "--config", cfg)[0] == exit_codes.PASS


def test_summary_file_and_context_warning(cli, tmp_path):
    ctx = {"compiler": "g++ 13.1.0"}
    code, out, _ = gate(cli, tmp_path, [rec("a", S)], [rec("a", S, ctx=ctx)], "--summary", tmp_path / "s" / "gate.md")
    text = (tmp_path / "s" / "gate.md").read_text()
    assert code == exit_codes.PASS and text.strip() == out.strip()
    assert "compiler: g++ 12.2.0 → g++ 13.1.0" in text


def test_baseline_by_machine_kind(cli, tmp_path):
    root = tmp_path / "baselines"
    cur = write(tmp_path / "c.json", [rec("a", S)])
    assert cli("baseline", "refresh", cur, "--machine-kind", "ci-cpu", "--root", root)[0] == exit_codes.PASS
    assert (root / "ci-cpu" / "records.json").is_file()
    assert cli("gate", "--current", cur, "--machine-kind", "ci-cpu", "--baselines-root", root)[0] == exit_codes.PASS
    code, _, err = cli("gate", "--current", cur, "--machine-kind", "other", "--baselines-root", root)
    assert code == exit_codes.BAD_INPUT and "baseline not found" in err and "hint:" in err
