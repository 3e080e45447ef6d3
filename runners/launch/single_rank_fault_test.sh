#!/usr/bin/env bash
# No fault on a single rank hangs a job: each case launches `tandem collectives` at 2 ranks
# (3 for uneven groups) with a fault on one rank and wants the exit code of the contract,
# the rank named, and the job over well within `timeout` (124 from it means a hang: FAIL).
#   rank0_error    --out /proc/nope: only rank 0 writes, so only rank 0 fails      → exit 5
#   rank0_write_error  records.json is a directory: rank 0 fails writing its first row while
#                  rank 1 goes on into the raw MPI_Allreduce (no hook: a real failure) → exit 5
#   rank1_error    a failed MPI call on rank 1 mid-sweep (test hook), rank 0 waits → exit 5
#   stall_raw_mpi  rank 1 stalls inside the raw MPI_Allreduce (test hook)         → exit 5,
#                  the watchdog names op, size, group and both stuck ranks
#   stall_init     rank 1 stalls before MPI_Init (test hook): rank 0 waits in it  → exit 5
#   stall_agree    rank 1 stalls in the agreement on the options (test hook)      → exit 5
#   mismatch       ranks launched with different -o, then different -n            → exit 4
#   uneven         --groups uneven with an op that takes no uneven groups (3 ranks)     → exit 4
# The hooks (TANDEM_TEST_HOOK, engine/comm/test_hooks.h) exist in builds with tests only.
# usage: single_rank_fault_test.sh CASE TANDEM MPIEXEC
set -uo pipefail
case_=${1:?usage: single_rank_fault_test.sh CASE TANDEM MPIEXEC}
tandem=${2:?usage: single_rank_fault_test.sh CASE TANDEM MPIEXEC}
mpiexec=${3:?usage: single_rank_fault_test.sh CASE TANDEM MPIEXEC}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL ($case_): $*" >&2; exit 1; }
# --watchdog-timeout: a faulty job must end within about T (plus start-up and abort). Where
# the job must end by agreement (exit 4) T is long, so a loaded machine's slow start-up is never taken for a stall.
T=6
[[ $case_ == mismatch || $case_ == uneven ]] && T=120
limit=90     # far beyond T + start-up on a loaded 2-core machine: reaching it is a hang
base=(collectives -b 1K -e 4K -n 2 -w 0 --watchdog-timeout "$T")
sweep=("${base[@]}" --out "$work/out")
mapfile -t flags < <("$here/mpi_flags.sh" "$mpiexec")
log=$work/log

# run NP [ENV=V...] -- tandem args: one program on NP ranks via mpirun.sh.
. "$here/launch_test_lib.sh"
run() { mpirun_job "$tandem" "$@"; }
# mpmd "args of rank 0" "args of rank 1": two programs, one rank each (MPMD launch).
mpmd() {
  start=$SECONDS
  timeout -k 10 "$limit" "$mpiexec" ${flags[@]+"${flags[@]}"} -np 1 "$tandem" $1 : -np 1 "$tandem" $2 > "$log" 2>&1
  rc=$?
  elapsed=$((SECONDS - start))
  cat "$log"
}

case $case_ in
  rank0_error)
    run 2 -- "${base[@]}" --out /proc/nope
    want_rc 5
    want_log "error on rank [01] .*/proc/nope.*\(rank 0\)"
    ;;
  rank0_write_error)
    mkdir -p "$work/out/records.json/keep"
    run 2 -- "${sweep[@]}" --ops psum
    want_rc 5
    want_log "error on rank 0 .*cannot write $work/out/records.json"
    (( elapsed < 4 * T + 30 )) || fail "took ${elapsed} s for a ${T} s watchdog"
    ;;
  rank1_error)
    # Rank 1's second barrier (after the first row's warm-up) fails; rank 0 is inside it.
    run 2 TANDEM_TEST_HOOK=fail:MPI_Barrier:1:2 -- "${sweep[@]}"
    want_rc 5
    want_log "error on rank 1 .*deliberate failure in MPI_Barrier on rank 1"
    (( elapsed < 4 * T + 30 )) || fail "took ${elapsed} s for a ${T} s watchdog"
    ;;
  stall_raw_mpi)
    run 2 TANDEM_TEST_HOOK=stall:raw_MPI_Allreduce:1 -- "${sweep[@]}" --ops psum
    want_rc 5
    for r in 0 1; do
      want_log "\[tandem watchdog\] rank $r of 2 \(host .*\): no progress for $T.0 s in collectives sweep: MPI_Allreduce 1024 bytes"
    done
    (( elapsed < 4 * T + 30 )) || fail "took ${elapsed} s for a ${T} s watchdog"
    ;;
  stall_init | stall_agree)
    point=MPI_Init what="MPI_Init on a communicator of 2 rank\(s\)"
    [[ $case_ == stall_agree ]] && point=agree what="the agreement on the arguments of tandem collectives"
    run 2 TANDEM_TEST_HOOK=stall:$point:1 -- "${sweep[@]}"
    want_rc 5
    want_log "\[tandem watchdog\] rank 0 of 2 \(host .*\): no progress for $T.0 s in $what"
    (( elapsed < 4 * T + 30 )) || fail "took ${elapsed} s for a ${T} s watchdog"
    ;;
  mismatch)
    mpmd "${sweep[*]} --ops psum" "${sweep[*]} --ops psum,all_gather"
    want_rc 4
    want_log "ranks disagree on the arguments: rank 0 has .*\"ops\":\[\"psum\"\].* but rank 1 has .*\"ops\":\[\"psum\",\"all_gather\"\]"
    common="collectives -b 1K -e 4K -w 0 --watchdog-timeout $T --out $work/out"
    mpmd "$common -n 2" "$common -n 3"
    want_rc 4
    want_log "ranks disagree on the arguments: rank 0 has .*\"iters\":2.* but rank 1 has .*\"iters\":3"
    ;;
  uneven)
    run 3 -- "${sweep[@]}" --groups uneven -c 0 --ops psum,all_gather
    want_rc 4
    want_log "uneven.*only allowed for"
    ! grep -q "^# tandem collectives" "$log" || fail "the sweep started before the groups were checked for every op"
    ;;
  *) fail "unknown case (want rank0_error rank0_write_error rank1_error stall_raw_mpi stall_init stall_agree mismatch uneven)" ;;
esac
echo "PASS ($case_): exit $rc after ${elapsed} s"
