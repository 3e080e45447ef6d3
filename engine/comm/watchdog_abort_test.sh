#!/usr/bin/env bash
# A real hung collective under mpirun: rank 1 never joins a psum that ranks 0 and 2 enter
# (SelfTest.WatchdogAbortsAHungPsum). The job must end non-zero within the ctest timeout, and the log must name the op,
# its size, the group and each rank that did not finish, and the waiting ranks must name rank 1 as the peer that never
# arrived. usage: watchdog_abort_test.sh MPIEXEC COMM_MPI_TEST
set -uo pipefail
mpiexec=${1:?usage: watchdog_abort_test.sh MPIEXEC COMM_MPI_TEST}
test_bin=${2:?usage: watchdog_abort_test.sh MPIEXEC COMM_MPI_TEST}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t flags < <("$here/../../runners/launch/mpi_flags.sh" "$mpiexec")  # Open MPI's flags for Open MPI only
# The variable reaches every rank from mpiexec's environment (Open MPI and Hydra both pass it on).
TANDEM_SELFTEST_HANG_RANK=1 "$mpiexec" -np 3 ${flags[@]+"${flags[@]}"} \
  "$test_bin" --gtest_filter=SelfTest.WatchdogAbortsAHungPsum > "$log" 2>&1
rc=$?
cat "$log"
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ $rc == 5 ]] || fail "the job exited $rc, want 5 (infrastructure error): a hang is not a pass, a wrong result or a timeout code"
for r in 0 2; do
  grep -q "\[tandem watchdog\] rank $r of 3 (host .*): no progress for 1.0 s in psum f32\[1024\] (4096 bytes) groups=all" "$log" ||
    fail "no watchdog report from stuck rank $r naming op, size and group"
done
! grep -q "\[tandem watchdog\] rank 1 of 3" "$log" || fail "rank 1 finished (never entered) but was reported"
# The waiting ranks ask the others (peer_status.h): rank 1 is named as the one that never came.
grep -q "peer not in this call: rank 1 (host .*) is in no MPI call" "$log" ||
  fail "the waiting ranks did not name rank 1 as the peer that never reached the psum"
grep -q "waiting in this call too: rank(s) [02]" "$log" || fail "the waiting ranks did not find each other in the psum"
echo "PASS: the watchdog aborted the hung psum (exit $rc) and named ranks 0 and 2"
