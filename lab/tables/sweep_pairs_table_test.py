"""Tests of sweep_pairs_table.py: the table from a pair of records, and its refusals (a failed
row, records without any tandem/raw pair) with a hint and exit 4."""
import json
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(__file__), "sweep_pairs_table.py")


def record(op, size, median, verdict="pass", ranks=2, raw=False, mean=None):
    """A sweep record as the sweep writes it: busbw at the mean time with the op's factor."""
    mean = mean or median
    bus = size / mean / 1e9 * (2 * (ranks - 1) / ranks)  # psum's factor
    return {"case": f"collectives/sweep/op:{op}/call:{'raw' if raw else 'tandem'}/bytes:{size}", "verdict": verdict,
            "message": "", "params": {"op": op, "impl": "raw" if raw else "tandem", "bytes": size, "ranks": ranks,
                                      "inplace": False, "call": "MPI_Allreduce" if raw else "tandem"},
            "timing": {"median": median, "mean": mean}, "metrics": [{"name": "busbw", "value": bus}]}


def run(tmp_path, recs):
    path = tmp_path / "records.json"
    path.write_text(json.dumps({"records": recs}))
    return subprocess.run([sys.executable, SCRIPT, str(path)], capture_output=True, text=True)


def test_pair_table_and_geometric_means(tmp_path):
    recs = [record("psum", 1024, 2e-6, mean=4e-6), record("psum", 1024, 1e-6, raw=True),
            record("psum", 1 << 20, 1.1e-3), record("psum", 1 << 20, 1e-3, raw=True)]
    r = run(tmp_path, recs)
    assert r.returncode == 0, r.stderr
    # 1 MiB on 2 ranks: busbw = S / t × 2(G-1)/G = 1048576 / 1.1e-3 / 1e9; at 1 KiB the p50
    # (2 µs), not the mean (4 µs), sets the tandem busbw.
    assert "| psum / MPI_Allreduce |" in r.stdout
    assert "| 1 MiB | 0.95 / 1.05 (1.10) |" in r.stdout
    assert "| 1 KiB | 0.51 / 1.02 (2.00) |" in r.stdout
    assert "psum 1.10 (2.00)" in r.stdout


def test_repeated_runs_give_the_median_ratio(tmp_path):
    paths = []
    for i, raw_t in enumerate((1e-3, 1e-3, 0.25e-3)):  # the third run's raw row was lucky
        path = tmp_path / f"run{i}.json"
        path.write_text(json.dumps({"records": [record("psum", 1 << 20, 1.1e-3), record("psum", 1 << 20, raw_t, raw=True)]}))
        paths.append(str(path))
    r = subprocess.run([sys.executable, SCRIPT, *paths], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "(1.10) |" in r.stdout and "median of 3 runs" in r.stdout
    assert "psum 1.10 (-)" in r.stdout  # no row below 1 MiB: "-", not nan


def test_failed_row_is_refused_with_a_hint(tmp_path):
    r = run(tmp_path, [record("psum", 1024, 1e-6, verdict="fail"), record("psum", 1024, 1e-6, raw=True)])
    assert r.returncode == 4  # bad input
    assert "did not pass" in r.stderr and "hint:" in r.stderr


def test_records_without_a_pair_are_refused(tmp_path):
    r = run(tmp_path, [record("psum", 1024, 1e-6)])
    assert r.returncode == 4  # bad input
    assert "no (tandem op, raw call) pair" in r.stderr and "hint:" in r.stderr


def test_missing_or_garbled_records_exit_4_with_a_hint(tmp_path):
    r = subprocess.run([sys.executable, SCRIPT, str(tmp_path / "missing.json")], capture_output=True, text=True)
    assert r.returncode == 4 and "not a sweep's records" in r.stderr and "hint:" in r.stderr
    (tmp_path / "bad.json").write_text('{"records": [{"case": "x"}]}')  # a record without params
    r = subprocess.run([sys.executable, SCRIPT, str(tmp_path / "bad.json")], capture_output=True, text=True)
    assert r.returncode == 4 and "KeyError" in r.stderr and "hint:" in r.stderr


def test_old_raw_ops_pair_and_each_world_size_gets_its_table(tmp_path):
    old = record("mpi_allreduce", 1 << 20, 1e-3)  # the pre-issue-14 sweep: the raw call as an op
    del old["params"]["impl"], old["params"]["call"]
    recs = [record("psum", 1 << 20, 1.1e-3), old, record("psum", 1 << 20, 2e-3, ranks=4),
            record("psum", 1 << 20, 1e-3, raw=True, ranks=4)]
    r = run(tmp_path, recs)
    assert r.returncode == 0, r.stderr
    assert "| psum / mpi_allreduce |" in r.stdout and "(1.10) |" in r.stdout and "(2.00) |" in r.stdout
    assert "| ranks | psum |\n|---|---|\n| 2 | 1.10 |\n| 4 | 2.00 |" in r.stdout
