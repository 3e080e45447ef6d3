"""Self-tests of the checks around a GPU session, so each can fail: ci/device_limits.py (what
the device tool would bring back from $OUT), ci/gpu_rehearsal_verdict.py's step judgement (a
step may fail in the rehearsal only for want of a GPU, and only if it needs one), the window's
plan (ci/gpu_window_plan.py: it fits with the reserve, every estimate marked measured or
guess), the sanitizer phase's plan from ctest's list, the build's own measure, the rehearsal's tree copy, the pack without an xz program, and the
preflight's refusals (ci/gpu_preflight.sh: a stale bundle, a tree over 64 MiB, a rehearsal
not of HEAD)."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


limits = load("device_limits")
verdict = load("gpu_rehearsal_verdict")
window = load("gpu_window_plan")
sanitizer = load("gpu_sanitizer_plan")
estimate = load("gpu_build_estimate")
ratio_table = load("gpu_ratio_table")


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


def test_a_sixth_column_and_a_sanitizer_without_its_tool_are_judged(tmp_path):
    rows = [("sanitizer_memcheck_dot_test", "not run", "-", "0", "no compute-sanitizer here", "sanitizer"),
            ("sanitizer_plan", "pass", "0", "1", "note", "sanitizer")]
    assert judge(rows, tmp_path=tmp_path) == []
    assert judge([("sanitizer_plan", "FAIL", "1", "1", "no gpu test", "sanitizer")], tmp_path=tmp_path) != []


def test_a_failed_pack_after_a_phase_fails_the_rehearsal(tmp_path):
    gpu = tmp_path / "gpu"
    for name in [m[4:] for m in verdict.MUST_HOLD] + ["quick_cuda/dot/records.json", "program/p/records.json"]:
        write(str(gpu / name))
    archive = str(tmp_path / "a.tar.xz")
    with tarfile.open(archive, "w:xz") as t:
        t.add(str(gpu), arcname="gpu")
    assert verdict.judge_archive(archive)[0] == []
    (gpu / "logs").mkdir()
    (gpu / "logs" / "after_phase.log").write_text("/bin/sh: 1: xz: not found\n")
    with tarfile.open(archive, "w:xz") as t:
        t.add(str(gpu), arcname="gpu")
    assert verdict.judge_archive(archive)[0] == ["a pack after a phase failed: /bin/sh: 1: xz: not found"]


def test_the_window_plan_leaves_the_reserve_and_marks_every_estimate():
    rows = window.phases()
    assert [r[0] for r in rows][:5] == ["machine", "bundle", "configure", "build", "ctest"]
    assert all(r[2].startswith(("measured", "guess")) for r in rows)
    limit = window.first_call_limit(900, 120)
    assert 900 - 120 - limit - window.RETURN_S >= 180 and limit <= 600
    # The phases of most value fit the first call's deadline by the estimates.
    _, total = window.table(rows[:6], limit - window.PACK_S)
    assert total <= limit - window.PACK_S
    assert window.main(["plan", "--start", "500"]) == 1  # a call too short to reach ctest is refused


def test_an_estimate_without_its_basis_is_refused(tmp_path):
    bad = tmp_path / "plan.tsv"
    bad.write_text("build\t90\tabout a minute\n")
    try:
        window.phases(str(bad))
    except ValueError as e:
        assert "measured or guess" in str(e)
    else:
        raise AssertionError("an unmarked estimate was accepted")


def test_the_sanitizer_plan_groups_by_binary_and_initchecks_the_lstm():
    rows = sanitizer.plan([("/b/cuda_test", "Dot.A"), ("/b/cuda_test", "Lstm.Fwd"), ("/b/other", "*")])
    assert ("memcheck", "cuda_test", "/b/cuda_test", "Dot.A:Lstm.Fwd") in rows
    assert ("initcheck", "cuda_test", "/b/cuda_test", "Lstm.Fwd") in rows
    assert ("memcheck", "other", "/b/other", "*") in rows and len(rows) == 3


def test_the_sanitizer_report_names_errors_and_cut_runs(tmp_path):
    (tmp_path / "sanitizer").mkdir()
    (tmp_path / "sanitizer" / "memcheck_a.txt").write_text(
        "========= Invalid __global__ read of size 4 bytes\n========= ERROR SUMMARY: 1 error\n")
    (tmp_path / "sanitizer" / "initcheck_b.txt").write_text("========= COMPUTE-SANITIZER\n")
    text = sanitizer.report(str(tmp_path))
    assert "| memcheck_a | 1 | Invalid __global__ read of size 4 bytes |" in text
    assert "| initcheck_b | no summary" in text


def test_the_build_estimate_reads_the_last_build_only(tmp_path):
    log = tmp_path / ".ninja_log"
    log.write_text("# ninja log v5\n0\t90000\t1\told.o\th\n"      # an older build: 90 s
                   "0\t10000\t1\ta.o\th\n0\t20000\t1\tb.o\th\n19000\t30000\t1\tlink\th\n")
    commands = estimate.last_build(str(log))
    assert sorted(o for _, o in commands) == ["a.o", "b.o", "link"]
    assert estimate.estimate(commands, 2) == (41.0, 20.0, 40.5)


def test_the_ratio_table_puts_each_backend_beside_the_other(tmp_path):
    def rec(backend, ratio):
        return {"case": f"lstm/B:1/{backend}", "backend": backend,
                "correctness": {"h_n": {"error_over_tolerance": ratio}, "note": "not a comparison"}}
    table = ratio_table.ratios([rec("cpu", 0.05), rec("cuda", 0.4)])
    assert table == {("lstm/B:1", "h_n"): {"cpu": 0.05, "cuda": 0.4}}
    text = ratio_table.markdown(table, 5)
    assert "| lstm/B:1 | h_n | 0.05 | 0.4 |" in text and "- cuda: 1 outputs, max 0.4" in text
    (tmp_path / "r.json").write_text(json.dumps({"records": [{"case": "x/cpu", "backend": "cpu"}]}))
    assert ratio_table.main(["t", str(tmp_path / "r.json")]) == 4  # no ratio at all: bad input


def test_the_pack_needs_no_xz_program(tmp_path):
    """The GPU image need not have the xz program (the rehearsal's Ubuntu minbase lacks it)."""
    work, out, tools = tmp_path / "gpu", tmp_path / "out", tmp_path / "bin"
    (work / "logs").mkdir(parents=True)
    tools.mkdir()
    for name, text in (("steps.tsv", "build\tpass\n"), ("logs/build.log", "ok\n"), (".pack.lock", "")):
        (work / name).write_text(text)
    for tool in ("cp", "mv", "mkdir", "flock", "tar", "dirname", "basename"):
        if shutil.which(tool):
            os.symlink(shutil.which(tool), tools / tool)
    os.symlink(os.path.realpath(sys.executable), tools / "python3")
    r = subprocess.run([shutil.which("bash"), os.path.join(HERE, "gpu_pack.sh"), str(work), str(out)],
                       env={"PATH": str(tools)}, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with tarfile.open(out / "gpu-results.tar.xz") as t:
        names = t.getnames()
    assert "gpu/logs/build.log" in names and "gpu/.pack.lock" not in names
    assert (out / "steps.tsv").read_text() == "build\tpass\n"


def test_the_rehearsal_copy_rebuilds_a_changed_file_older_than_its_object(tmp_path):
    """A reused rehearsal build is judged by mtime: a file changed since the last copy must
    come out newer than the object built from it, whatever mtime its checkout gave it."""
    src, dest, lst = tmp_path / "src", tmp_path / "dest", tmp_path / "list"
    src.mkdir()
    lst.write_text("a.cc\nb c.h\n")
    old = 1_000_000_000
    for name in ("a.cc", "b c.h"):
        (src / name).write_text("1")
        os.utime(src / name, (old, old))
    copy = ["bash", os.path.join(HERE, "gpu_tree_copy.sh"), str(lst), str(src), str(dest)]
    subprocess.run(copy, check=True)
    built = old + 100                                  # the objects of the first copy's build
    (src / "a.cc").write_text("2")
    os.utime(src / "a.cc", (old + 50, old + 50))       # changed, yet older than its object
    subprocess.run(copy, check=True)
    assert (dest / "a.cc").read_text() == "2" and os.stat(dest / "a.cc").st_mtime > built
    assert os.stat(dest / "b c.h").st_mtime == old    # unchanged: its mtime kept, not rebuilt
    assert subprocess.run(copy[:2] + [str(tmp_path / "none"), str(src), str(dest)]).returncode == 4


def preflight_repo(tmp_path, missing=()):
    """A git repo holding the preflight and its tables, with a bundle lacking `missing`."""
    repo = tmp_path / "repo"
    (repo / "ci").mkdir(parents=True)
    for name in ("gpu_preflight.sh", "bundle_packages.txt", "gpu_window_plan.py", "gpu_plan.tsv"):
        shutil.copy(os.path.join(HERE, name), repo / "ci" / name)
    (repo / ".gitignore").write_text("/.deps/\n/results/\n")
    debs = repo / ".deps" / "debs"
    debs.mkdir(parents=True)
    for line in open(os.path.join(HERE, "bundle_packages.txt")):
        pkg = line.strip()
        if pkg and not pkg.startswith("#") and pkg not in missing:
            (debs / f"{pkg}_1.0_amd64.deb").write_bytes(b"!<arch>\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "x"], check=True)
    head = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    return repo, head


def preflight(repo, head=None, exit_code=0):
    logs = repo / "results" / "gpu-rehearsal"
    if head:
        logs.mkdir(parents=True, exist_ok=True)
        (logs / "rehearsed.txt").write_text(f"commit {head}\ndirty 0\nexit {exit_code}\n")
    r = subprocess.run(["bash", str(repo / "ci" / "gpu_preflight.sh")], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def test_the_preflight_starts_a_window_only_on_a_whole_bundle_and_a_rehearsed_head(tmp_path):
    repo, head = preflight_repo(tmp_path)
    rc, text = preflight(repo, head)
    assert rc == 0, text
    assert f"TANDEM_COMMIT={head} GPU_CALL_LIMIT=" in text and "bash ci/gpu_session.sh rest" in text
    rc, text = preflight(repo, "0" * 40)
    assert rc == 1 and "not HEAD" in text
    rc, text = preflight(repo, head, exit_code=1)
    assert rc == 1 and "did not pass" in text
    (repo / "new.txt").write_text("x")
    rc, text = preflight(repo, head)
    assert rc == 1 and "uncommitted" in text


def test_the_preflight_refuses_a_bundle_made_before_the_list_grew(tmp_path):
    repo, head = preflight_repo(tmp_path, missing=("libre2-dev",))
    rc, text = preflight(repo, head)
    assert rc == 1 and "lacks 1 package(s) of ci/bundle_packages.txt: libre2-dev" in text
    shutil.rmtree(repo / ".deps")
    rc, text = preflight(repo, head)
    assert rc == 1 and "no .deps/debs" in text


def test_the_preflight_refuses_a_tree_over_64_mib(tmp_path):
    repo, head = preflight_repo(tmp_path)
    with open(repo / ".deps" / "debs" / "huge_1.0_amd64.deb", "wb") as f:
        f.truncate(65 << 20)  # sparse: its size counts, no disk is spent
    rc, text = preflight(repo, head)
    assert rc == 1 and "over the device tool's 64 MiB" in text


if __name__ == "__main__":
    sys.exit(__import__("pytest").main([__file__, "-q"]))
