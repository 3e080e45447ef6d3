"""Tests of sweep_pairs_table.py: the table from a pair of records, and its refusals (a failed
row, records without any tandem/MPI pair) with a hint and a non-zero exit."""
import json
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(__file__), "sweep_pairs_table.py")


def record(op, size, median, verdict="pass", ranks=2):
    return {"case": f"collectives/sweep/op:{op}/bytes:{size}", "verdict": verdict, "message": "",
            "params": {"op": op, "bytes": size, "ranks": ranks}, "timing": {"median": median}}


def run(tmp_path, recs):
    path = tmp_path / "records.json"
    path.write_text(json.dumps({"records": recs}))
    return subprocess.run([sys.executable, SCRIPT, str(path)], capture_output=True, text=True)


def test_pair_table_and_geometric_means(tmp_path):
    recs = [record("psum", 1024, 2e-6), record("mpi_allreduce", 1024, 1e-6),
            record("psum", 1 << 20, 1.1e-3), record("mpi_allreduce", 1 << 20, 1e-3)]
    r = run(tmp_path, recs)
    assert r.returncode == 0, r.stderr
    # 1 MiB on 2 ranks: busbw = S / t × 2(G-1)/G = 1048576 / 1.1e-3 / 1e9.
    assert "| 1 MiB | 0.95 / 1.05 (1.10) |" in r.stdout
    assert "| 1 KiB | 0.51 / 1.02 (2.00) |" in r.stdout
    assert "psum 1.10 (2.00)" in r.stdout


def test_failed_row_is_refused_with_a_hint(tmp_path):
    r = run(tmp_path, [record("psum", 1024, 1e-6, verdict="fail"), record("mpi_allreduce", 1024, 1e-6)])
    assert r.returncode != 0
    assert "did not pass" in r.stderr and "hint:" in r.stderr


def test_records_without_a_pair_are_refused(tmp_path):
    r = run(tmp_path, [record("psum", 1024, 1e-6)])
    assert r.returncode != 0
    assert "no (tandem op, raw MPI op) pair" in r.stderr and "hint:" in r.stderr
