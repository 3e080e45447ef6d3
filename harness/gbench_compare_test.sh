#!/usr/bin/env bash
# Google Benchmark's own tools/compare.py (Debian: libbenchmark-tools) compares two `tandem run` outputs and runs its
# Mann-Whitney U test on every timed case: the benchmark.json tandem writes has what compare.py reads (per-repetition
# real_time and cpu_time under one name, aggregates apart). Usage: gbench_compare_test.sh path/to/tandem
set -u
tandem=$1
compare=${GBENCH_COMPARE:-/usr/share/benchmark/compare.py}
if [ ! -f "$compare" ]; then
  echo "FAIL: $compare not found; hint: apt-get install libbenchmark-tools (ci/deps.txt)"; exit 1
fi
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
for run in a b; do
  "$tandem" run -q -n 9 --backend cpu --suite dot --filter 'M:4/K:1/.*in:f32/alg:F32' --out "$out/$run" >/dev/null \
    || { echo "FAIL: tandem run $run"; exit 1; }
done
python3 "$compare" -d "$out/diff.json" benchmarks "$out/a/benchmark.json" "$out/b/benchmark.json" \
  > "$out/compare.txt" || { cat "$out/compare.txt"; echo "FAIL: compare.py exited non-zero"; exit 1; }
cat "$out/compare.txt"
python3 - "$out/diff.json" "$out/a/benchmark.json" <<'PY' || exit 1
import json, sys
diff, bench = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
iterations = {b["name"] for b in bench["benchmarks"] if b["run_type"] == "iteration"}
assert iterations, "no timed case in benchmark.json"
tested = {d["name"]: d["utest"] for d in diff if d["name"] in iterations}
assert set(tested) == iterations, f"compare.py compared {sorted(tested)}, expected {sorted(iterations)}"
for name, u in tested.items():
    assert u and u["nr_of_repetitions"] == 9 and 0 <= u["time_pvalue"] <= 1 and 0 <= u["cpu_pvalue"] <= 1, (name, u)
    assert u["have_optimal_repetitions"], (name, u)
aggs = {d["aggregate_name"] for d in diff if d["run_type"] == "aggregate"}
assert {"mean", "median", "stddev"} <= aggs, aggs
print(f"PASS: U test on {len(tested)} case(s)")
PY
