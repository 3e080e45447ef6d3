#!/usr/bin/env bash
# `tandem run` on NP ranks through runners/launch/mpirun.sh: a quick subset of the dot and LSTM perf cases, run in
# lockstep (harness/rank_lockstep.h). Checks the records rank 0 wrote: one complete records.json holding each case once
# (not once per rank), every record passed, named ".../ranks:NP", with params.ranks and context.ranks = NP and NP
# per-rank entries (ranks 0..NP-1); the reduced timing (per-iteration max over ranks) is at least each rank's own min,
# median and max; gflops comes from the reduced median. The job is bounded by `timeout` (124: a hang, FAIL). usage:
# multi_rank_run_test.sh TANDEM MPIEXEC NP
set -uo pipefail
tandem=${1:?usage: multi_rank_run_test.sh TANDEM MPIEXEC NP}
mpiexec=${2:?usage: multi_rank_run_test.sh TANDEM MPIEXEC NP}
np=${3:?usage: multi_rank_run_test.sh TANDEM MPIEXEC NP}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL (np $np): $*" >&2; exit 1; }
# The smallest dot perf product next to sgemm, LSTM batch-1 inference and the smallest
# DeepBench training shape: seconds per rank even with 4 ranks on 2 cores.
filter='^(dot/perf/N:512/(alg:F32_F32_F32|blas_sgemm)|lstm/perf/(infer_b1/B:1/T:100/I:512/H:512|deepbench/B:16/T:25/I:512/H:512)/L:1/bidi:0/(fwd|train))$'
TANDEM="$tandem" TANDEM_MPIRUN="$mpiexec" timeout -k 10 600 "$here/mpirun.sh" "$np" \
  run --profile nightly --backend cpu --filter "$filter" -n 3 -w 1 --watchdog-timeout 120 --out "$work/out" \
  > "$work/log" 2>&1
rc=$?
cat "$work/log"
[[ $rc != 124 && $rc != 137 ]] || fail "the job hung: killed by timeout"
[[ $rc == 0 ]] || fail "exit $rc, want 0"
files=$(cd "$work/out" && ls -A | tr '\n' ' ')
[[ $files == "benchmark.json records.json summary.md " ]] || fail "rank 0's output holds '$files'"
python3 - "$work/out/records.json" "$np" <<'PY' || fail "records do not hold the reduced timing of $np ranks"
import json, sys
doc = json.load(open(sys.argv[1]))
np = int(sys.argv[2])
assert doc.get("complete") is True, "records.json not marked complete"
recs = doc["records"]
names = [r["case"] for r in recs]
assert len(names) == len(set(names)), f"a case recorded more than once: {names}"
assert len(recs) == 5, f"want 2 dot + 3 lstm records, got {names}"
for r in recs:
    name = r["case"]
    assert r["verdict"] == "pass", (name, r["verdict"], r["message"])
    assert name.endswith(f"/cpu/ranks:{np}"), name
    assert r["params"]["ranks"] == np and r["context"]["ranks"] == np, name
    m = r["multi_rank"]
    assert m["ranks"] == np and m["iterations_reduced"] == 3, (name, m)
    per = m["per_rank"]
    assert [p["rank"] for p in per] == list(range(np)), (name, per)
    t = r["timing"]
    assert t["repetitions"] == 3, (name, t)
    for p in per:
        for k in ("min", "median", "max"):
            assert t[k] >= p[k] > 0, (name, k, t[k], p)
    assert m["slowest_rank"] == max(per, key=lambda p: p["median"])["rank"], (name, m)
    med = {x["name"]: x["value"] for x in r["metrics"]}
    assert med["time_median"] == t["median"], name
    if name.startswith("dot/"):  # 2·512³ FLOPs a run, over the reduced median
        assert abs(med["gflops"] - 2 * 512**3 / t["median"] * 1e-9) <= 1e-9 * med["gflops"], name
    assert abs(med["gflops_all_ranks"] - np * med["gflops"]) <= 1e-9 * med["gflops_all_ranks"], name
print(f"{len(recs)} records of {np} ranks: reduced max >= every rank's own")
PY
[[ $(grep -cE "^total: 5 passed, 0 failed, 0 skipped, 0 errors$" "$work/log") == 1 ]] || fail "the closing line is not printed once (by rank 0)"
echo "PASS (np $np): one record per case, timing reduced over $np ranks"
