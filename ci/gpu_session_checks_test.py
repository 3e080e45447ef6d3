"""Self-tests of the two checks a GPU session's results go through, so each can fail:
ci/device_limits.py (what the device tool would bring back from $OUT) and
ci/gpu_rehearsal_verdict.py's step judgement (a step may fail in the rehearsal only for want
of a GPU, and only if it needs one)."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


limits = load("device_limits")
verdict = load("gpu_rehearsal_verdict")


def write(path, size=10):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"x" * size)


def test_a_pack_of_four_small_files_comes_back(tmp_path):
    for name in ("gpu-results.tar.xz", "summary.md", "steps.tsv", "machine.txt"):
        write(str(tmp_path / name))
    found, why = limits.problems(str(tmp_path))
    assert len(found) == 4 and why == []


def test_nine_files_too_deep_too_big_and_odd_names_are_each_named(tmp_path):
    for i in range(9):
        write(str(tmp_path / f"f{i}.json"))
    write(str(tmp_path / "a" / "b" / "c" / "records.json"))      # three folders down
    write(str(tmp_path / "big.tar"), limits.MAX_FILE_BYTES + 1)
    write(str(tmp_path / "bad name.md"))
    _, why = limits.problems(str(tmp_path))
    text = "\n".join(why)
    assert "more than 2 folders down" in text and "over 16 MiB" in text
    assert "other than letters" in text and "files, over 8" in text


def test_the_cli_exits_1_on_a_problem_and_4_on_bad_input(tmp_path):
    write(str(tmp_path / "a" / "b" / "c" / "x.json"))
    assert limits.main(["device_limits.py", str(tmp_path)]) == 1
    assert limits.main(["device_limits.py", str(tmp_path / "missing")]) == 4


def judge(rows, logs=None, tmp_path=None):
    gpu_dir = str(tmp_path)
    for step, text in (logs or {}).items():
        write(os.path.join(gpu_dir, "logs", step + ".log"))
        with open(os.path.join(gpu_dir, "logs", step + ".log"), "w") as f:
            f.write(text)
    return verdict.judge_steps(rows, gpu_dir)[1]


def test_a_gpu_step_failing_for_want_of_a_gpu_is_expected(tmp_path):
    rows = [("gpu_visible", "FAIL", "1", "0", "bash: nvidia-smi: command not found"),
            ("quick_cuda_dot_as_cpu", "FAIL", "1", "2", "error: no CUDA case passed"),
            ("configure", "pass", "0", "4", "")]
    assert judge(rows, tmp_path=tmp_path) == []


def test_a_step_that_needs_no_gpu_failing_is_named(tmp_path):
    rows = [("configure", "FAIL", "1", "4", "CMake Error: could not find OpenCL"),
            ("mpi_np2", "FAIL", "243", "1", "mpirun could not find ssh")]
    failures = judge(rows, tmp_path=tmp_path)
    assert [f.split(":")[0] for f in failures] == ["step configure", "step mpi_np2"]


def test_a_gpu_step_failing_for_another_reason_is_named(tmp_path):
    rows = [("nccl_np1_no_skips", "FAIL", "1", "1", "3 skipped")]
    logs = {"nccl_np1_no_skips": "[  SKIPPED ] Nccl.AllReduce: built without NCCL"}
    assert judge(rows, logs, tmp_path) == ["step nccl_np1_no_skips: 3 skipped"]


def test_a_skip_check_forgives_no_device_skips_only(tmp_path):
    rows = [("ctest_gpu_no_skips", "FAIL", "1", "0", "2 skip(s) not by design")]
    no_device = "  FAILS: Dot.Tf32: no CUDA device visible\n"
    assert judge(rows, {"ctest_gpu_no_skips": no_device * 2}, tmp_path) == []
    mixed = no_device + "  FAILS: Lstm.Fwd: built without cuDNN\n"
    assert judge(rows, {"ctest_gpu_no_skips": mixed}, tmp_path) != []


def test_a_step_cut_by_the_deadline_fails_the_rehearsal(tmp_path):
    rows = [("perf_cuda_dot", "not run", "-", "0", "out of time: the call's deadline is 12 s away")]
    assert judge(rows, tmp_path=tmp_path) != []


if __name__ == "__main__":
    sys.exit(__import__("pytest").main([__file__, "-q"]))
