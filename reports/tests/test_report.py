# The report renders from the fixture records: index.html, summary.md and one non-empty PNG
# per plot each suite's users look at (generic plots for a suite without its own).
from conftest import FIXTURES

from reports import exit_codes

SUITES = ["dot", "dot_small", "lstm", "collectives", "remat", "scan_hoist", "vmap"]
EXPECTED = ["dot_error_per_algorithm.png", "dot_accuracy_order.png", "dot_gflops.png", "lstm_gflops.png",
            "collectives_busbw_psum.png", "collectives_busbw_all_gather.png", "collectives_busbw_ragged_all_to_all.png",
            "remat_pareto_mlp_L_4_B_4_D_8.png", "remat_pareto_attention_B_2_T_4_D_8.png", "scan_hoist_speedup_memory.png", "scan_hoist_sweep.png",
            "vmap_time_median.png"]


def test_report_renders_every_suite(cli, tmp_path):
    out = tmp_path / "report"
    code, stdout, _ = cli("report", *[FIXTURES / f"{s}.json" for s in SUITES], "-o", out)
    assert code == exit_codes.PASS and "index.html" in stdout
    for name in EXPECTED:
        png = out / name
        assert png.is_file(), name
        assert png.stat().st_size > 10000 and png.read_bytes()[:4] == b"\x89PNG", name
    html = (out / "index.html").read_text()
    for name in EXPECTED:
        assert f'src="{name}"' in html
    assert "dot/special/inf_nan/alg:F16_F16_F16/cpu" in html  # the failed case is in the table
    summary = (out / "summary.md").read_text()
    assert "| dot | 34 | 2 | 2 | 0 | 3 |" in summary and "## Failures (2)" in summary
    assert not list(out.glob(".*.tmp"))  # atomic writes leave no temporaries


def test_report_of_one_suite_draws_only_its_plots(cli, tmp_path):
    out = tmp_path / "r"
    assert cli("report", FIXTURES / "remat.json", "-o", out)[0] == exit_codes.PASS
    assert sorted(p.name for p in out.glob("*.png")) == ["remat_pareto_attention_B_2_T_4_D_8.png",
                                                         "remat_pareto_mlp_L_4_B_4_D_8.png"]


def test_suite_without_usable_params_says_not_drawn(cli, tmp_path):
    from conftest import rec, write

    r = rec("collectives/odd/cpu", suite="collectives",
            metrics=[{"name": "busbw", "value": 3.0, "unit": "GB/s", "direction": "higher"}])  # no bytes param
    out = tmp_path / "r"
    assert cli("report", write(tmp_path / "c.json", [r]), "-o", out)[0] == exit_codes.PASS
    assert not list(out.glob("*.png"))  # no stand-in chart of per-case times
    assert "not drawn (no record carries what it plots): collectives_busbw_*.png" in (out / "index.html").read_text()


def test_readme_lists_every_promised_plot():
    from conftest import ROOT

    from reports.plots import PROMISES

    readme = (ROOT / "reports" / "README.md").read_text()
    for suite, patterns in PROMISES.items():
        for pattern in patterns:
            assert f"`{pattern}`" in readme and f"| {suite} |" in readme, (suite, pattern)


def test_undrawn_promise_is_visible(cli, tmp_path):
    from conftest import rec, write

    out = tmp_path / "r"
    lstm = rec("lstm/B:1/cpu", suite="lstm", metrics=[{"name": "time_median", "value": 1.0, "unit": "s"}])
    assert cli("report", write(tmp_path / "l.json", [lstm]), "-o", out)[0] == exit_codes.PASS
    assert "not drawn (no record carries what it plots): lstm_gflops.png" in (out / "index.html").read_text()
    assert "- ⚠ lstm: lstm_gflops.png" in (out / "summary.md").read_text()


def test_failures_on_top_and_skips_grouped_by_reason(cli, tmp_path):
    from conftest import rec, write

    recs = [rec(f"dot/ok{i}/cpu") for i in range(3)] + [rec("dot/bad/cpu", None, verdict="fail")]
    for i in range(5):
        recs.append(rec(f"dot/f8_{i}/cpu", None, verdict="skip"))
        recs[-1]["message"] = "needs f8 storage"
    recs.append(rec("dot/mpi/cpu", None, verdict="skip"))
    recs[-1]["message"] = "needs >= 2 ranks"
    out = tmp_path / "r"
    assert cli("report", write(tmp_path / "d.json", recs), "-o", out)[0] == exit_codes.PASS
    page = (out / "index.html").read_text()
    assert page.index("Failures (1)") < page.index('id="dot"')  # above the suite and its plots
    assert page.count("5 skipped: needs f8 storage") == 1 and "1 skipped: needs &gt;= 2 ranks" in page
    assert "dot/f8_0/cpu" not in page  # one line per reason, not a row per skipped case


def test_quick_run_draws_no_time_per_case_chart(cli, tmp_path):
    """Quick-profile cases are correctness runs: no "time per case" bars for them; a suite with
    nothing else to plot shows its correctness table only, and a perf-only plot is not missed."""
    from conftest import rec, write

    quick = dict(rec()["context"], command_line="build/tandem run --suite vmap -q")
    nightly = dict(quick, command_line="build/tandem run --suite vmap --profile nightly")
    out = tmp_path / "q"
    recs = [rec(f"vmap/x{i}/cpu", suite="vmap", ctx=quick,
                metrics=[{"name": "time_median", "value": 1e-3, "unit": "s", "direction": "lower"}]) for i in range(3)]
    recs.append(rec("dot/B:1/M:4/K:4/N:4/cpu", ctx=quick, metrics=[{"name": "gflops", "value": 1.0, "unit": "GFLOP/s"}]))
    assert cli("report", write(tmp_path / "q.json", recs), "-o", out)[0] == exit_codes.PASS
    page = (out / "index.html").read_text()
    assert not list(out.glob("vmap_*.png")) and "Correctness: 3 cases ran" in page
    assert "dot_gflops.png is drawn from the perf cases" in page
    assert "not drawn (no record carries what it plots): dot_error_per_algorithm.png, dot_accuracy_order.png<" in page
    out2 = tmp_path / "n"
    for r in recs:
        r["context"] = nightly
    assert cli("report", write(tmp_path / "n.json", recs), "-o", out2)[0] == exit_codes.PASS
    assert (out2 / "vmap_time_median.png").is_file()  # a nightly run's times are measurements
    assert "dot_accuracy_order.png, dot_gflops.png</p>" in (out2 / "index.html").read_text()  # now missed
