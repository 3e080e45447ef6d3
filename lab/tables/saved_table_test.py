"""Tests of saved_table.py, vmap_rounds_table.py, remat_rounds_table.py and
scan_hoist_sweep_table.py: the tables read back from a tool's saved output or a run's records,
the minima over rounds, and their refusals of a missing or garbled file (exit 4, a hint)."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(__file__)
TABLE = "| batch | vmapped min / median (ms) | loop min / median (ms) |\n|---:|---:|---:|\n"


def run(script, *args):
    return subprocess.run([sys.executable, os.path.join(HERE, script), *map(str, args)], capture_output=True, text=True)


def refused(r, what):
    assert r.returncode == 4, r
    assert what in r.stderr and "hint:" in r.stderr, r.stderr


def test_saved_table_prints_the_tools_table_and_only_the_one_asked(tmp_path):
    raw = tmp_path / "out.md"
    raw.write_text("load average at start: 1.0\n\nmlp\n" + TABLE + "| 1 | 0.1 / 0.2 | 0.3 / 0.4 |\n\nlstm\n"
                   + "| policy | MB |\n|---|---:|\n| save(act\\|pre) | 8.39 |\n")
    r = run("saved_table.py", raw)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[2] == "| 1 | 0.1 / 0.2 | 0.3 / 0.4 |" and "| save(act\\|pre) | 8.39 |" in r.stdout
    r = run("saved_table.py", "--after", "lstm", raw)  # the escaped | stays in its cell
    assert r.returncode == 0 and r.stdout.splitlines() == ["| policy | MB |", "|---|---:|", "| save(act\\|pre) | 8.39 |"]
    refused(run("saved_table.py", "--after", "gru", raw), "no Markdown table in it right below the line 'gru'")


def test_saved_table_refuses_a_missing_or_garbled_file(tmp_path):
    refused(run("saved_table.py", tmp_path / "missing.md"), "cannot be read")
    bad = tmp_path / "bad.md"
    bad.write_text(TABLE + "| 1 | 0.1 / 0.2 |\n")  # a cell lost
    refused(run("saved_table.py", bad), "bad.md:3: 2 cells, the header has 3")
    bad.write_text("| batch | ms |\n| 1 | 0.1 |\n")  # no |---| row
    refused(run("saved_table.py", bad), "without its |---| row")
    bad.write_text("no table here\n")
    refused(run("saved_table.py", bad), "no Markdown table in it")
    refused(run("saved_table.py"), "no raw output file given")


def vmap_round(path, rows, prims):
    body = "".join(f"| {n} | {v} / 1.0 | {loop} / 1.0 |\n" for n, v, loop in rows)
    path.write_text(TABLE + body + "\nvmapped program at batch 256, mean time per primitive over 15 runs:\n\n"
                    "| primitive | us |\n|---|---:|\n" + "".join(f"| {p} | {us} |\n" for p, us in prims.items()))


def test_vmap_rounds_take_the_minimum_over_the_rounds(tmp_path):
    vmap_round(tmp_path / "r1_before.md", [(4, 0.040, 0.080)], {"tanh": 500.0, "add": 9.0})
    vmap_round(tmp_path / "r2_before.md", [(4, 0.036, 0.090)], {"tanh": 600.0, "add": 8.0})
    vmap_round(tmp_path / "r1_after.md", [(4, 0.020, 0.050)], {"tanh": 20.0, "add": 7.0})
    vmap_round(tmp_path / "r2_after.md", [(4, 0.018, 0.045)], {"tanh": 19.5, "add": 7.5})
    r = run("vmap_rounds_table.py", tmp_path, 1, 2)
    assert r.returncode == 0, r.stderr
    # before 0.036, after 0.018 (2.00×); loop 0.080 → 0.045, 2.5× the vmapped; 18 ms / 4 = 4.50 µs each
    assert "| 4 | 0.036 | 0.018 | 2.00× | 0.080 | 0.045 | 2.5 | 4.50 |" in r.stdout
    assert "| primitive at batch 256 (min over rounds of the mean of 15) |" in r.stdout
    assert r.stdout.index("| tanh | 500.0 | 19.5 |") < r.stdout.index("| add | 8.0 | 7.0 |")  # largest first
    refused(run("vmap_rounds_table.py", tmp_path, 1, 3), "r3_before.md: cannot be read")
    (tmp_path / "r2_after.md").write_text(TABLE + "| 4 | 0.018 / 1.0 | 0.045 / 1.0 |\n")  # no profile
    refused(run("vmap_rounds_table.py", tmp_path, 1, 2), "want vmap_bench's batch table and its --profile-batch table")


def test_scan_hoist_sweep_table_and_its_refusals(tmp_path):
    point = lambda n, e, s: {"L": n, "E": e, "speedup": s, "peak_original_bytes": n * e * 8, "peak_hoisted_bytes": 4 * (n + e) * 4}
    rec = {"case": "scan_hoist/sweep/mse/L:16-32/E:65536/cpu", "info": {"table": [point(32, 65536, 1.5), point(16, 65536, 1.25)]}}
    path = tmp_path / "records.json"
    path.write_text(json.dumps({"records": [rec]}))
    r = run("scan_hoist_sweep_table.py", path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:4] == ["| L \\ E | 65,536 |", "|---:|---|",
                                         "| 16 | 1.25× · 8.39 MB / 1.05 MB |", "| 32 | 1.50× · 16.8 MB / 1.05 MB |"]
    refused(run("scan_hoist_sweep_table.py", tmp_path / "missing.json"), "not a scan_hoist run's records")
    path.write_text(json.dumps({"records": [{"case": "scan_hoist/mse/L:64"}]}))
    refused(run("scan_hoist_sweep_table.py", path), "no scan_hoist sweep case or large program")
    metrics = {"peak_above_inputs_original": 5.24288e8, "peak_above_inputs_hoisted": 1052896.0,
               "time_original": 0.1, "time_hoisted": 0.0744, "speedup": 1.3424}
    big = {"case": "scan_hoist/mse/L:1000/B:256/F:256/dtype:f32/mode:stacked/cpu",
           "metrics": [{"name": k, "value": v} for k, v in metrics.items()]}
    path.write_text(json.dumps({"records": [big]}))
    r = run("scan_hoist_sweep_table.py", path)  # a large program: its own table
    assert r.stdout.splitlines()[2] == "| mse, L = 1000, E = 65,536 | 524 MB → 1.05 MB | 0.100 → 0.074 s | 1.34× |", r.stdout


def test_vmap_rounds_find_their_columns_by_name(tmp_path):
    hand = "| batch | vmapped min / median (ms) | hand-batched min / median (ms) | loop min / median (ms) |\n|---:|---:|---:|---:|\n"
    prof = "\nvmapped program at batch 256, mean time per primitive over 15 runs:\n\n| primitive | us |\n|---|---:|\n| add | 9.0 |\n"
    (tmp_path / "r1_before.md").write_text(hand + "| 4 | 0.040 / 1.0 | 0.030 / 1.0 | 0.080 / 1.0 |\n" + prof)
    (tmp_path / "r1_after.md").write_text(hand + "| 4 | 0.020 / 1.0 | 0.010 / 1.0 | 0.050 / 1.0 |\n" + prof)
    r = run("vmap_rounds_table.py", tmp_path, 1)  # the loop, not the hand-batched column
    assert "| 4 | 0.040 | 0.020 | 2.00× | 0.080 | 0.050 | 2.5 | 5.00 |" in r.stdout, r.stdout + r.stderr


def remat_round(path, ms):
    head = "| policy | residuals | fwd+bwd ms |\n|---|---|---|\n"
    path.write_text("[ RUN ] x\nmlp/L:8\n" + head + "".join(f"| {p} | 1 | {t} |\n" for p, t in ms.items()) + "[ OK ]\n")


def test_remat_rounds_take_min_and_median_over_the_rounds(tmp_path):
    for r, (b, a) in enumerate([(100.0, 50.0), (300.0, 70.0), (200.0, 60.0)], start=1):
        remat_round(tmp_path / f"r{r}_before.md", {"everything_saveable": b, "save(act\\|pre)": 2 * b})
        remat_round(tmp_path / f"r{r}_after.md", {"everything_saveable": a, "save(act\\|pre)": 2 * a})
    r = run("remat_rounds_table.py", tmp_path, 1, 2, 3)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith("| mlp/L:8: policy | fwd+bwd ms before, min / median of 3 rounds |")
    assert "| everything_saveable | 100.00 / 200.00 | 50.00 / 60.00 | 3.33× |" in r.stdout  # medians 200 / 60
    assert "| save(act\\|pre) | 200.00 / 400.00 | 100.00 / 120.00 | 3.33× |" in r.stdout
    refused(run("remat_rounds_table.py", tmp_path, 1, 4), "r4_before.md: cannot be read")
    (tmp_path / "r1_before.md").write_text("no table\n")
    refused(run("remat_rounds_table.py", tmp_path, 1), "no Markdown table in it")
