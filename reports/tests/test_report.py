# The report renders from the fixture records: index.html, summary.md and one non-empty PNG
# per plot each suite's users look at (generic plots for a suite without its own).
from conftest import FIXTURES

from reports import exit_codes

SUITES = ["dot", "dot_small", "lstm", "collectives", "remat", "scan_hoist", "vmap"]
EXPECTED = ["dot_error_per_algorithm.png", "dot_accuracy_order.png", "dot_gflops.png", "lstm_gflops.png",
            "collectives_busbw_psum.png", "collectives_busbw_all_gather.png", "collectives_busbw_ragged_all_to_all.png",
            "remat_pareto_mlp_L_4_B_4_D_8.png", "remat_pareto_attention_B_2_T_4_D_8.png", "scan_hoist_speedup_memory.png",
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
    assert "| dot | 16 | 2 | 2 | 0 | 3 |" in summary and "## Failures (2)" in summary
    assert not list(out.glob(".*.tmp"))  # atomic writes leave no temporaries


def test_report_of_one_suite_draws_only_its_plots(cli, tmp_path):
    out = tmp_path / "r"
    assert cli("report", FIXTURES / "remat.json", "-o", out)[0] == exit_codes.PASS
    assert sorted(p.name for p in out.glob("*.png")) == ["remat_pareto_attention_B_2_T_4_D_8.png",
                                                         "remat_pareto_mlp_L_4_B_4_D_8.png"]


def test_suite_without_usable_params_falls_back_to_generic(cli, tmp_path):
    from conftest import rec, write

    r = rec("collectives/odd/cpu", suite="collectives",
            metrics=[{"name": "busbw", "value": 3.0, "unit": "GB/s", "direction": "higher"}])  # no bytes param
    out = tmp_path / "r"
    assert cli("report", write(tmp_path / "c.json", [r]), "-o", out)[0] == exit_codes.PASS
    assert (out / "collectives_busbw.png").stat().st_size > 5000


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
