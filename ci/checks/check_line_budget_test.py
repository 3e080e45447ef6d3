"""Self-test of check_line_budget.py: it passes a tree within budget, and fails (exit 1, the
biggest files listed) on one file over the per-file budget and on a product or a lab over its
own total; the lab (lab/) is counted apart from the product."""
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_line_budget.py")


def tree(tmp_path, sizes):
    for name, n in sizes.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x\n" * n)
    return tmp_path


def check(root, *args):
    return subprocess.run([sys.executable, SCRIPT, str(root), *args], capture_output=True, text=True)


def test_within_budget_passes(tmp_path):
    r = check(tree(tmp_path, {"a.cc": 400, "b/c.py": 100, "notes.md": 5000}), "--total", "500")
    assert r.returncode == 0, r.stdout
    assert "2 files; product 500 lines" in r.stdout  # .md does not count


def test_one_file_over_fails_and_names_it(tmp_path):
    r = check(tree(tmp_path, {"a.cc": 401, "small.sh": 3}))
    assert r.returncode == 1
    assert "FAIL: a.cc: 401 lines > 400" in r.stdout
    assert "biggest files:" in r.stdout and "   401  a.cc" in r.stdout


def test_tree_over_total_fails(tmp_path):
    r = check(tree(tmp_path, {"a.h": 300, "b.cu": 300}), "--total", "599")
    assert r.returncode == 1
    assert "the product has 600 lines > 599" in r.stdout


def test_the_lab_counts_apart_from_the_product(tmp_path):
    t = tree(tmp_path, {"engine/a.cc": 300, "lab/bench/b.cc": 300, "lab/pages/p.md": 9000})
    r = check(t, "--total", "300", "--lab-total", "300")
    assert r.returncode == 0, r.stdout
    assert "product 300 lines (budget 300), lab 300 lines (budget 300)" in r.stdout


def test_lab_over_its_own_budget_fails_and_lists_its_files(tmp_path):
    t = tree(tmp_path, {"engine/a.cc": 350, "lab/bench/b.cc": 301})
    r = check(t, "--total", "1000", "--lab-total", "300")
    assert r.returncode == 1
    assert "the lab has 301 lines > 300" in r.stdout and "the product has" not in r.stdout
    assert "   301  lab/bench/b.cc" in r.stdout and "engine/a.cc" not in r.stdout.split("biggest files:")[1]


def test_build_folders_do_not_count(tmp_path):
    r = check(tree(tmp_path, {"a.cc": 10, "build/gen.cc": 10000, ".deps/x.h": 10000}))
    assert r.returncode == 0, r.stdout


def test_empty_tree_is_bad_input(tmp_path):
    r = check(tmp_path)
    assert r.returncode == 4 and "hint:" in r.stderr


def test_todays_tree_is_within_budget():
    r = check(os.path.join(os.path.dirname(SCRIPT), "..", ".."))
    assert r.returncode == 0, r.stdout
