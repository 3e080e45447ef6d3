"""Tests of the batch runner (gtest_batch_run.py) on a real gtest binary whose cases pass, skip,
fail and abort (gtest_batch_selftest_cases.cc), and of the batch writer's grouping
(gtest_batches.py): every case answers by name, a crash is named and the cases after it still
run, a batch that only skips exits 77, a listed case the binary lacks fails.

    pytest gtest_batch_run_test.py   (GTEST_BATCH_SELFTEST_CASES: the binary)
"""
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "gtest_batch_run.py")
CASES = os.environ.get("GTEST_BATCH_SELFTEST_CASES", "")
spec = importlib.util.spec_from_file_location("gtest_batches", os.path.join(HERE, "gtest_batches.py"))
writer = importlib.util.module_from_spec(spec)
spec.loader.exec_module(writer)


def batch(*cases):
    p = subprocess.run([sys.executable, RUNNER, CASES, "--gtest_filter=" + ":".join(cases)],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout


def test_passes_and_skips_pass_and_the_skip_is_counted_with_its_reason():
    code, out = batch("Ok.Passes", "Ok.Skips")
    assert code == 0, out
    assert "gtest batch: skipped 1: no widget on this machine" in out
    assert "gtest batch: 1 passed, 0 failed, 1 skipped, 0 crashed or not run, of 2" in out


def test_a_batch_that_only_skips_is_a_skip():
    code, out = batch("Ok.Skips")
    assert code == 77, out


def test_a_failure_is_named():
    code, out = batch("Bad.Fails", "Ok.Passes")
    assert code == 1, out
    assert "gtest batch: FAILED: Bad.Fails" in out and "1 passed, 1 failed" in out


def test_a_crash_is_named_and_the_cases_after_it_run():
    code, out = batch("Ok.Passes", "Bad.Aborts", "Ok.AfterTheCrash")
    assert code == 1, out
    assert "gtest batch: CRASHED: Bad.Aborts (signal 6)" in out
    assert "[       OK ] Ok.AfterTheCrash" in out and "2 passed, 0 failed, 0 skipped, 1 crashed or not run, of 3" in out


def test_a_case_the_binary_lacks_fails():
    code, out = batch("Ok.Passes", "Ok.NoSuchCase")
    assert code == 1, out
    assert "gtest batch: NOT RUN: Ok.NoSuchCase (the binary has no such case)" in out


def test_a_wildcard_filter_is_refused():
    code, _ = batch("Ok.*")
    assert code == 2


def test_groups_are_suites_or_the_captures_and_split_round_robin():
    assert writer.group_name("DotCpu.Exact", "") == "DotCpu.*"
    rx = r"^(Q/C\.M/[a-z0-9]+_).*(_cpu|_cuda)$"
    assert writer.group_name("Q/C.M/dot_B_1_cpu", rx) == "Q/C.M/dot_*_cpu"
    assert writer.group_name("Other.Case", rx) == "Other.*"
    cases = [f"Q/C.M/dot_{i}_cpu" for i in range(250)] + ["Q/C.M/dot_0_cuda"]
    out = writer.batches(cases, rx, 100)
    assert [n for n, _ in out] == ["Q/C.M/dot_*_cpu[1/3]", "Q/C.M/dot_*_cpu[2/3]", "Q/C.M/dot_*_cpu[3/3]",
                                   "Q/C.M/dot_*_cuda"]
    assert sorted(c for _, m in out for c in m) == sorted(cases) and max(len(m) for _, m in out) <= 100
