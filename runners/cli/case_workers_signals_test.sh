#!/usr/bin/env bash
# Crash isolation without holes (runners/cli/case_workers.h): a case worker killed from outside
# at any moment, a stopped (hung) one, and `tandem bench` on a crashing case. Each run must
# leave one record per selected case, every case it did not lose to the signal passing, and an
# exit code that says what the records say (0 all passed, 5 some case is an error):
#   kill   the first worker SIGKILLed as soon as it exists (before its first case), then its
#          replacement the same way: a new worker goes on each time
#   stop   a worker SIGSTOPped in the middle of a run (cases of ≈ 0.3 s each, so it is inside
#          one), under --case-timeout 30: the stuck case
#          becomes an error record naming the limit, a fresh worker runs the rest
#   bench  a case that segfaults in its check is an error (exit 5), the others are benchmarked
# usage: case_workers_signals_test.sh TANDEM
set -uo pipefail
tandem=${1:?usage: case_workers_signals_test.sh TANDEM}
work=$(mktemp -d)
trap 'for p in $(jobs -p); do kill -KILL "$p" 2>/dev/null; done; rm -rf "$work"' EXIT  # our own background runs only
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
sel=(--suite vmap --profile quick --filter '^vmap/attention/' --backend cpu)
want=$("$tandem" list "${sel[@]}" | grep -c '^vmap/')
(( want >= 4 )) || { echo "FAIL: the selection has $want cases, want at least 4" >&2; exit 1; }

# A child of $1 other than those in $2 (space-separated), waited for up to 60 s.
new_child() {
  local parent=$1 seen=" $2 " i c
  for ((i = 0; i < 60000; ++i)); do
    for c in $(cat /proc/"$parent"/task/*/children 2>/dev/null); do
      [[ $seen == *" $c "* ]] || { echo "$c"; return 0; }
    done
    kill -0 "$parent" 2>/dev/null || return 1
    sleep 0.001
  done
  return 1
}

# check_records NAME RC WHY LOST: one record per case, each a pass or an error whose message matches WHY, at most LOST
# errors (the cases the signals can have hit: every other case must pass, or a run where each case met the limit would
# pass too); the exit code 5 when some record is an error, else 0.
check_records() {
  python3 - "$work/$1/records.json" "$want" "$2" "$3" "$4" <<'PY' || fail "$1: records"
import json, re, sys
doc = json.load(open(sys.argv[1]))
recs, want, rc, why, lost = doc["records"], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
assert doc.get("complete") is True, "records.json not marked complete"
assert len(recs) == want, f"{len(recs)} records, want {want}"
errors = [r for r in recs if r["verdict"] != "pass"]
assert len(errors) <= lost, f"{len(errors)} error records, at most {lost} lost to the signals: {[r['case'] for r in errors]}"
for r in errors:
    assert r["verdict"] == "error" and re.search(why, r["message"]), (r["case"], r["verdict"], r["message"][:300])
assert rc == (5 if errors else 0), f"exit {rc} with {len(errors)} error records"
print(f"{len(recs)} records, {len(errors)} lost to the signal, exit {rc}")
PY
}

# kill: the first worker and its replacement, each as soon as it exists.
"$tandem" check "${sel[@]}" --out "$work/kill" > "$work/kill.log" 2>&1 &
parent=$!
w1=$(new_child "$parent" "") && kill -KILL "$w1"
w2=$(new_child "$parent" "${w1:-}") && kill -KILL "$w2"
wait "$parent"
rc=$?
[[ -n ${w1:-} && -n ${w2:-} ]] || fail "kill: no two workers seen"
check_records kill "$rc" "signal 9" 2
grep -q "a new one goes on" "$work/kill.log" || echo "note: the kills landed inside cases, not before them"

# stop: a worker stopped once the run is under way; the per-case limit ends its case.
# --min-time counts the case's own time, not its anchor's (a 256³ sgemm beside each iteration,
# ≈ 12× these cases' 37 µs on a Zen 4): 0.02 s of it is ≈ 0.3 s of a worker's time per case. (0.3 s of it hit the
# 10,000-sample cap: 7.5 s a case, every case past the 5 s limit.) The limit is far above a case (in the fresh root's
# ctest, beside two other tests, 5 of 14 cases outlasted 5 s): only the stopped case may meet it.
"$tandem" run "${sel[@]}" -v --min-time 0.02 -n 1 -w 0 --case-timeout 30 --out "$work/stop" > "$work/stop.log" 2>&1 &  # -v: a line per case to wait on
parent=$!
for ((i = 0; i < 600; ++i)); do grep -q "^\[2/" "$work/stop.log" && break; sleep 0.1; done
w=$(new_child "$parent" "") && kill -STOP "$w"
t0=$SECONDS
wait "$parent"
rc=$?
[[ -n ${w:-} ]] && kill -KILL "$w" 2>/dev/null
[[ -n ${w:-} ]] || fail "stop: no worker seen"
(( SECONDS - t0 < 150 )) || fail "stop: the run took $((SECONDS - t0)) s after the stop (limit 30 s)"
check_records stop "$rc" "per-case limit of 30 s" 1
grep -q "per-case limit of 30 s" "$work/stop/records.json" || echo "note: the stop landed between cases"

# bench: the planted segfault in every vmap over an axis of size 1.
TANDEM_INJECT=crash_vmap_axis_size_one timeout 300 "$tandem" bench "${sel[@]}" -- --benchmark_min_time=0.01 \
  > "$work/bench.log" 2>&1
rc=$?
[[ $rc == 5 ]] || fail "bench with crashing cases: exit $rc, want 5: $(tail -c 300 "$work/bench.log")"
crashed=$(grep -c "error — not benchmarked" "$work/bench.log")
(( crashed > 0 )) || fail "bench: no case recorded as an error"
grep -q "SIGSEGV" "$work/bench.log" || fail "bench: the error does not name the signal"
timed=$(sed 's/\x1b\[[0-9;]*m//g' "$work/bench.log" | grep -c "^vmap/attention/.*/cpu  *[0-9]")
(( timed + crashed == want )) || fail "bench: $timed benchmarked + $crashed errors, want $want cases"

(( failures == 0 )) || { echo "$failures failure(s)" >&2; exit 1; }
echo "PASS: killed, replaced and stopped workers leave every case's record and the right exit code; bench isolates a crash"
