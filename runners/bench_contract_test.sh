#!/usr/bin/env bash
# `tandem bench`'s exit codes with Google Benchmark's flags: every flag is checked before any case runs — a bad value,
# an unknown flag, a filter that matches nothing are bad input (4) with a hint; an --benchmark_out that cannot be
# written is an infrastructure error (5), never 1 (the correctness code) or 0 with nothing benchmarked.
set -uo pipefail
tandem=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
sel=(bench --suite dot --filter 'M:4/K:1/.*in:f32/alg:F32' --backend cpu)
quick=--benchmark_min_time=0.01
expect() {  # expect CODE GREP-PATTERN -- GBENCH-FLAGS...
  local want=$1 pattern=$2; shift 3
  "$tandem" "${sel[@]}" -- "$@" >"$out/stdout" 2>"$out/stderr"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: $*: exit $got, want $want"; head -5 "$out/stderr"; fail=1
  elif ! grep -Eq -- "$pattern" "$out/stderr" "$out/stdout"; then
    echo "FAIL: $*: exit $got but no /$pattern/ in the output"; head -5 "$out/stderr"; fail=1
  else
    echo "ok: $* (exit $got)"
  fi
}
expect 4 "not one of console, json, csv" -- --benchmark_format=xml
expect 4 "matches none of the 1 benchmark" -- --benchmark_filter=no_such_case $quick
expect 4 "not a valid regular expression" -- '--benchmark_filter=('
expect 4 "not an integer in \[1, 1000000\]" -- --benchmark_repetitions=-1
expect 4 "not an integer in \[1, 1000000\]" -- --benchmark_repetitions=0
expect 4 "not a finite number" -- --benchmark_repetitions=three
expect 4 "not a finite number" -- --benchmark_min_time=nan
expect 4 "outside \(0, 86400\]" -- --benchmark_min_time=-1
expect 4 "unknown Google Benchmark flag.*|hint: the flags" -- --benchmark_frobnicate=1
expect 4 "needs a value" -- --benchmark_out
expect 4 "is a directory" -- "--benchmark_out=$out"
expect 4 "not supported by this Google Benchmark build" -- --benchmark_perf_counters=CYCLES
expect 4 "not a Google Benchmark flag" -- benchmark_format=json
expect 5 "cannot write --benchmark_out=/nonexistent/b.json.*|hint: check that its directory exists" \
  -- --benchmark_out=/nonexistent/b.json
# Good flags still work, and every report names the runs by case/backend alone.
expect 0 "dot/.*/cpu" -- --benchmark_list_tests
expect 0 '"benchmarks"' -- --benchmark_format=json $quick
python3 -c "
import json, sys; d = json.load(open('$out/stdout'))
names = [b['name'] for b in d['benchmarks']]
assert names and all(n.startswith('dot/') and n.endswith('/cpu') for n in names), names
" || { echo "FAIL: --benchmark_format=json: stdout is not the JSON report"; fail=1; }
expect 0 "dot/" -- "--benchmark_out=$out/b.csv" --benchmark_out_format=csv $quick --benchmark_repetitions=2
grep -q '^name,iterations,real_time' "$out/b.csv" && grep -q '^"dot/.*/cpu",' "$out/b.csv" && ! grep -q manual_time "$out/b.csv" \
  || { echo "FAIL: --benchmark_out_format=csv: $(head -3 "$out/b.csv")"; fail=1; }
if [ $fail = 0 ]; then echo "bench contract: all ok"; fi
exit $fail
