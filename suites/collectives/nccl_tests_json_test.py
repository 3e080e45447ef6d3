#!/usr/bin/env python3
"""`tandem collectives -J -I 1 -K 1` at 2 ranks, read the way nccl-tests' own reader reads its
files: tools/analyze_perf_json.py of NVIDIA/nccl-tests v2.19.6 (a0b82b2). The checks below
restate, in our words, what that script takes from the file (results[].size, the
*_per_iter objects, per_process_max_times_us, config.devices[].hostname) and its consistency
rule (times_us is the max over the process rows); when NCCL_TESTS_ANALYZE names that script,
it also runs unmodified on our file. Bad -J/-I/-K end 4 with a hint.
usage: nccl_tests_json_test.py TANDEM MPIEXEC"""
import atexit, json, os, shutil, statistics, subprocess, sys, tempfile

tandem, mpiexec = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp()
atexit.register(shutil.rmtree, work, True)
out = os.path.join(work, "sweep.json")
ITERS, SKIP, RANKS = 6, 1, 2
sweep = [mpiexec, "-np", str(RANKS), "--oversubscribe", "--allow-run-as-root", tandem, "collectives", "-b", "1K",
         "-e", "4K", "-n", str(ITERS), "-w", "1", "--ops", "psum,all_gather", "--out", os.path.join(work, "rec")]
run = subprocess.run(sweep + ["-J", out, "-I", "1", "-K", str(SKIP)], capture_output=True, text=True)
assert run.returncode == 0, run.stdout + run.stderr
doc = json.load(open(out))

# Top level and config, in nccl-tests' order and spellings ("true"/"false" are strings there).
assert list(doc)[:5] == ["version", "start_time", "args", "env", "nccl_version"] and doc["version"] == 3, list(doc)
assert list(doc)[-4:] == ["out_of_bounds", "average_bus_bandwidth", "errors", "end_time"], list(doc)
cfg = doc["config"]
assert cfg["iterations"] == ITERS and cfg["per_iter_skip"] == SKIP and cfg["per_iter_timing"] == "true", cfg
assert [d["rank"] for d in cfg["devices"]] == list(range(RANKS)) and all(d["hostname"] for d in cfg["devices"])
assert doc["out_of_bounds"] == {"count": 0, "okay": "true"}, doc["out_of_bounds"]

# 3 sizes × (psum, psum raw, all_gather, all_gather raw); all_gather has no in-place form.
res = doc["results"]
assert len(res) == 12, [r["experiment_name"] for r in res]
for r in res:
    assert list(r)[:5] == ["size", "count", "type", "redop", "root"] and len(r["root"]) == 6, r
    assert list(r)[-2:] == ["actual_iterations", "experiment_name"] and r["actual_iterations"] == ITERS, r
    places = ["out_of_place", "in_place"] if r["in_place"] is not None else ["out_of_place"]
    assert ("all_gather" in r["experiment_name"]) == (r["in_place"] is None), r["experiment_name"]
    for place in places:
        side, pi = r[place], r[place + "_per_iter"]
        assert set(side) == {"time", "alg_bw", "bus_bw", "nwrong"} and side["nwrong"] == 0, side
        rows = pi["per_process_max_times_us"]  # the script's PROCESS_TIMES_KEY
        assert len(rows) == RANKS and all(len(t) == ITERS and min(t) > 0 for t in rows), rows
        # The script's consistency check: times_us == the max over process rows, within 0.001.
        maxes = [max(t[i] for t in rows) for i in range(ITERS)]
        assert all(abs(a - b) < 0.001 for a, b in zip(pi["times_us"], maxes)), (pi["times_us"], maxes)
        # nccl-tests' summary (computeIterStats) over times_us after the -K skip.
        s = sorted(pi["times_us"][SKIP:])
        assert pi["skipped_iterations"] == SKIP and (pi["min_us"], pi["max_us"]) == (s[0], s[-1]), pi
        assert abs(pi["avg_us"] - statistics.fmean(s)) < 1e-6 and pi["p50_us"] == s[len(s) // 2], pi
        assert abs(pi["stdev_us"] - statistics.pstdev(s)) < 1e-6 and pi["cv_pct"] >= 0, pi
        for t in rows:  # the straggler view's per-row sample stdev needs 2+ samples
            statistics.stdev(t)

# Bad -J / -I / -K: exit 4 with a hint.
for bad in (["-I", "1"], ["-J", out, "-K", "1"], ["-J", out, "-I", "1", "-K", str(ITERS)], ["-J", "x.txt"]):
    b = subprocess.run(sweep[5:] + bad, capture_output=True, text=True)
    assert b.returncode == 4 and "hint:" in b.stderr + b.stdout, (bad, b.returncode, b.stderr)

script = os.environ.get("NCCL_TESTS_ANALYZE", "")
if not os.path.isfile(script):
    print("skipped the unmodified run: set NCCL_TESTS_ANALYZE to nccl-tests' tools/analyze_perf_json.py")
else:
    for extra, tag in (([], "OOP"), (["--in-place"], "IP")):
        a = subprocess.run([sys.executable, script, out, "--all"] + extra, capture_output=True, text=True)
        assert a.returncode == 0 and not a.stderr, a.stderr
        assert f"Consistency (times_us == max over process rows, {tag}): PASS" in a.stdout, a.stdout
        assert "PER-NODE ANALYSIS (1 nodes" in a.stdout and "PER-PROCESS STRAGGLER" in a.stdout, a.stdout
    print("nccl-tests' analyze_perf_json.py read the file:", script)
print("PASS")
