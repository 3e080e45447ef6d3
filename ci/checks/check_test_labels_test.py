"""Self-test of check_test_labels.py on a made-up tree and a stand-in ctest: matching labels
pass; a label no CMake file sets (DESIGN once named `slow`) and a printed label without its row
fail."""
import os
import stat
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_test_labels.py")
TABLE = "| label | tests |\n|---|---|\n| `unit` | one process |\n| `mpi` | under mpirun |\n"


def check(tmp_path, rows, printed, cmake='set_tests_properties(a PROPERTIES LABELS "unit;mpi" TIMEOUT 9)\n'):
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "DESIGN.md").write_text("# design\n\n" + TABLE + rows + "\nafter the table\n| `x` | not a row |\n")
    (root / "CMakeLists.txt").write_text(cmake)
    ctest = tmp_path / "ctest"
    ctest.write_text("#!/bin/sh\necho 'Test project /b'\necho 'All Labels:'\n" + "".join(f"echo '  {l}'\n" for l in printed))
    ctest.chmod(ctest.stat().st_mode | stat.S_IEXEC)
    return subprocess.run([sys.executable, SCRIPT, str(root), str(tmp_path), str(ctest)], capture_output=True, text=True)


def test_matching_labels_pass(tmp_path):
    r = check(tmp_path, "", ["mpi", "unit"])
    assert r.returncode == 0, r.stdout


def test_a_row_no_test_uses_fails(tmp_path):
    r = check(tmp_path, "| `slow` | long tests |\n", ["mpi", "unit"])
    assert r.returncode == 1
    assert "label slow of docs/DESIGN.md's table is set by no CMake file" in r.stdout


def test_a_printed_label_without_a_row_fails(tmp_path):
    r = check(tmp_path, "", ["mpi", "unit", "gpu"])
    assert r.returncode == 1
    assert "label gpu is carried by tests but has no row" in r.stdout


def test_a_label_set_on_another_line_counts(tmp_path):
    r = check(tmp_path, "", ["mpi", "unit"], cmake="tandem_add_test(x LABEL mpi)\nset_tests_properties(y\n  PROPERTIES LABELS unit)\n")
    assert r.returncode == 0, r.stdout
