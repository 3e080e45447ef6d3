# Records written for measurements taken outside `tandem run` (tools/oracles/torch_lstm_bench.py
# --records): valid against the schema, named as the suite names its perf cases, with the run
# context, and drawn by the LSTM plot beside tandem's own series at the same GFLOP/s formula.
from conftest import FIXTURES

from reports import bench_records, exit_codes, records
from reports.plots import lstm

SHAPE = {"label": "fastrnns", "batch": 64, "seq": 100, "input": 512, "hidden": 512, "layers": 1,
         "bidirectional": False, "train": True}


def test_lstm_records_are_valid_and_named_like_the_suite(tmp_path):
    ctx = bench_records.run_context(torch="1.13")
    recs = [bench_records.lstm_record(SHAPE, mode, [0.30, 0.20, 0.25], [0.5, 0.4, 0.45], "PyTorch nn.LSTM (CPU)", "cpu", ctx)
            for mode in ("fwd", "train")]
    bench_records.write(tmp_path / "t.json", recs)
    got = records.load(tmp_path / "t.json")
    assert [r["case"] for r in got] == ["lstm/perf/fastrnns/B:64/T:100/I:512/H:512/L:1/bidi:0/fwd/pytorch/cpu",
                                        "lstm/perf/fastrnns/B:64/T:100/I:512/H:512/L:1/bidi:0/train/pytorch/cpu"]
    fwd = 2 * 64 * 100 * 4 * 512 * (512 + 512)
    assert abs(records.metrics(got[0])["gflops"]["value"] - fwd / 0.25 / 1e9) < 1e-9
    assert abs(lstm.gflops(got[1]) - 3 * fwd / 0.25 / 1e9) < 1e-9  # the plot's formula agrees
    ctx = got[0]["context"]
    for key in ("date", "date_end", "load_avg_start", "load_avg_end", "command_line", "git_sha", "cpu_model", "cpu_threads"):
        assert key in ctx, key
    assert "not checked" in got[0]["message"]


def test_lstm_plot_draws_pytorch_beside_tandem(cli, tmp_path):
    ctx = bench_records.run_context()
    bench_records.write(tmp_path / "t.json", [bench_records.lstm_record(SHAPE, "fwd", [0.3], [], "PyTorch nn.LSTM (CPU)",
                                                                         "cpu", ctx)])
    out = tmp_path / "r"
    assert cli("report", FIXTURES / "lstm.json", FIXTURES / "dot.json", tmp_path / "t.json", "-o", out)[0] == exit_codes.PASS
    html = (out / "index.html").read_text()
    caption = html.split('alt="LSTM GFLOP/s')[1].split("</figcaption>")[0]
    for series in ("tandem CPU kernel", "tandem Program (scan)", "tandem cuDNN", "PyTorch nn.LSTM (CPU)",
                   "ceiling: BLAS sgemm (CPU)"):
        assert series in caption, series
    assert (out / "lstm_gflops.png").stat().st_size > 10000
