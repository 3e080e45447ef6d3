#!/usr/bin/env bash
# A fault on one rank of a multi-rank `tandem run` (harness/rank_lockstep.h) ends the
# whole job with the contract's exit code and the rank named, never a hang; each job runs at
# 2 ranks through runners/launch/mpirun.sh, bounded by `timeout` (124: a hang, FAIL).
#   fail_rank1   rank 1 alone runs with an injected LSTM fault (TANDEM_INJECT), so its check
#                of the LSTM case fails while rank 0's passes → exit 1; the record says
#                "failed on rank 1 of 2", is not timed, and the dot case beside it still
#                passes with timing reduced over both ranks; every record names rank 1's fault
#   stall_rank1  rank 1 stalls in the barrier before timing (test hook) → exit 5 within the
#                watchdog's bound, rank 0's watchdog naming that barrier and the case
#   mismatch     ranks launched with different --filter → exit 4 naming both ranks' cases
# usage: multi_rank_fault_test.sh CASE TANDEM MPIEXEC
set -uo pipefail
case_=${1:?usage: multi_rank_fault_test.sh CASE TANDEM MPIEXEC}
tandem=${2:?usage: multi_rank_fault_test.sh CASE TANDEM MPIEXEC}
mpiexec=${3:?usage: multi_rank_fault_test.sh CASE TANDEM MPIEXEC}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL ($case_): $*" >&2; exit 1; }
T=6          # --watchdog-timeout where a stall must end the job
limit=240    # far beyond T + start-up and the cases on a loaded 2-core machine: a hang
lstm='lstm/perf/infer_b1/B:1/T:100/I:512/H:512/L:1/bidi:0/fwd'
dot='dot/perf/N:512/alg:F32_F32_F32'
run=(run --profile nightly --backend cpu -n 2 -w 0 --out "$work/out")
log=$work/log
mapfile -t flags < <("$here/mpi_flags.sh" "$mpiexec")

# launch TANDEM_BINARY [ENV=V...] -- tandem args: 2 ranks via mpirun.sh.
. "$here/launch_test_lib.sh"
launch() { local bin=$1; shift; mpirun_job "$bin" 2 "$@"; }

case $case_ in
  fail_rank1)
    # rank_env.sh exports TANDEM_RANK before it starts this wrapper.
    printf '#!/bin/sh\n[ "$TANDEM_RANK" = 1 ] && export TANDEM_INJECT=lstm_gates_f_g_swapped\nexec "%s" "$@"\n' \
      "$tandem" > "$work/tandem_rank1_fault"
    chmod +x "$work/tandem_rank1_fault"
    launch "$work/tandem_rank1_fault" -- "${run[@]}" --filter "^($lstm|$dot)\$" --watchdog-timeout 120
    want_rc 1
    want_log "FAULT INJECTED on rank 1: lstm_gates_f_g_swapped"
    want_log "failed on rank 1 of 2 \(host .*\): "
    python3 - "$work/out/records.json" "$lstm" "$dot" <<'PY' || fail "the records do not say which rank failed"
import json, sys
recs = {r["case"]: r for r in json.load(open(sys.argv[1]))["records"]}
bad, good = recs[sys.argv[2] + "/cpu/ranks:2"], recs[sys.argv[3] + "/cpu/ranks:2"]
assert bad["verdict"] == "fail" and bad["message"].startswith("failed on rank 1 of 2"), bad["message"]
assert "rank 0" not in bad["message"], bad["message"]
assert "timing" not in bad, "a case that failed on a rank was timed"
assert [p["verdict"] for p in bad["multi_rank"]["per_rank"]] == ["pass", "fail"], bad["multi_rank"]
assert good["verdict"] == "pass" and good["timing"]["repetitions"] == 2, good
for r in (bad, good):  # rank 1's fault marks every record of the run, as a 1-rank run's context
    assert r["context"].get("injected_fault") == "lstm_gates_f_g_swapped", r["context"]
    assert r["multi_rank"]["injected_faults"] == {"1": "lstm_gates_f_g_swapped"}, r["multi_rank"]
PY
    ;;
  stall_rank1)
    launch "$tandem" TANDEM_TEST_HOOK=stall:MPI_Barrier:1 -- "${run[@]}" --filter "^$dot\$" --watchdog-timeout "$T"
    want_rc 5
    want_log "\[tandem watchdog\] rank 0 of 2 \(host .*\): no progress for $T.0 s in tandem run: the barrier before timing of $dot/cpu"
    (( elapsed < 4 * T + 60 )) || fail "took ${elapsed} s for a ${T} s watchdog"
    ;;
  mismatch)
    start=$SECONDS
    timeout -k 10 "$limit" "$mpiexec" ${flags[@]+"${flags[@]}"} \
      -np 1 "$tandem" "${run[@]}" --filter "^$dot\$" : -np 1 "$tandem" "${run[@]}" --filter "^$lstm\$" > "$log" 2>&1
    rc=$?
    elapsed=$((SECONDS - start))
    cat "$log"
    want_rc 4
    want_log "ranks disagree on the arguments: rank 0 has .*N:512.* but rank 1 has .*infer_b1"
    [[ ! -e $work/out/records.json ]] || fail "records written before the ranks agreed"
    ;;
  *) fail "unknown case (want fail_rank1 stall_rank1 mismatch)" ;;
esac
echo "PASS ($case_): exit $rc after ${elapsed} s"
