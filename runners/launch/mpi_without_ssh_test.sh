#!/usr/bin/env bash
# Open MPI on a machine with neither ssh nor rsh (the GPU machine): in a private mount
# namespace every ssh and rsh on PATH is covered by a non-executable file, then MPI must start
# through each entry point that sources runners/launch/mpi_local.sh:
#   offline_env   `. ci/offline_env.sh`, then MPIEXEC -np 2 TEST_BIN
#   singleton     `. ci/offline_env.sh`, then TEST_BIN alone (MPI_Init without a launcher)
#   mpirun.sh     runners/launch/mpirun.sh 2 with TANDEM=TEST_BIN
#   ctest         cmake/mpi_local_ctest.cmake (what ctest includes), then TEST_BIN alone
# Without the launcher choice mpirun exits 243 and the singleton's MPI_Init fails ("Unable to
# start a daemon on the local node"). Exit 77 (a skip) where no mount namespace can be made
# (not root, a container without CAP_SYS_ADMIN) or MPIEXEC is not Open MPI's.
# usage: mpi_without_ssh_test.sh MPIEXEC TEST_BIN   (TEST_BIN: build/engine/comm/comm_mpi_test)
set -uo pipefail
usage="usage: mpi_without_ssh_test.sh MPIEXEC TEST_BIN"
mpiexec=${1:?$usage}
bin=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# Two quick tests that communicate at 1 and 2 ranks (a skip would prove nothing).
filter='Semantics.PmeanOfInt32SumsInInt32ThenDividesInF32:Collectives.PermuteBroadcastAxisIndex'
[ -x "$bin" ] || { echo "error: $bin is not an executable (build comm_mpi_test first)" >&2; exit 2; }

# Lists every ssh and rsh on PATH that Open MPI would run (execute bit set).
remote_agents() {
  local d n IFS=:
  for d in $PATH; do for n in ssh rsh; do
    [ -f "${d:-.}/$n" ] && [ -x "${d:-.}/$n" ] && echo "${d:-.}/$n"
  done; done
  return 0
}
# Covers each of them with a non-executable file (this namespace only).
hide_remote_agents() {
  local blank=$1 f
  : >"$blank" && chmod 644 "$blank"
  for f in $(remote_agents); do mount --bind "$blank" "$f" && hidden+=("$f") || return 1; done
  [ -z "$(remote_agents)" ] || { echo "FAIL: could not hide: $(remote_agents)" >&2; return 1; }
}
# run_case NAME CMD...: runs CMD (time-limited, without any launcher choice inherited) and
# says PASS or FAIL with its exit code and the output's tail.
run_case() {
  local name=$1 rc; shift
  env -u OMPI_MCA_plm -u OMPI_MCA_plm_rsh_agent timeout 120 "$@" >"$work/$name.log" 2>&1
  rc=$?
  if [ $rc = 0 ] && grep -q "PASSED" "$work/$name.log" && ! grep -q "SKIPPED" "$work/$name.log"; then
    echo "PASS: $name"; return 0
  fi
  echo "FAIL: $name: exit $rc"; tail -15 "$work/$name.log" | sed 's/^/    /'; return 1
}

if [ "${3:-}" != --inside ]; then
  if ! "$mpiexec" --version 2>&1 | grep -qE "Open MPI|OpenRTE"; then
    echo "SKIP: $mpiexec is not Open MPI's (the ssh/rsh requirement is Open MPI's)"; exit 77
  fi
  if ! unshare --mount true 2>/dev/null; then
    echo "SKIP: no private mount namespace here (unshare --mount needs root / CAP_SYS_ADMIN)"; exit 77
  fi
  exec unshare --mount "$0" "$mpiexec" "$bin" --inside
fi

work=$(mktemp -d)
hidden=()
# The covering file is busy while mounted: unmount first, then remove.
trap 'for f in ${hidden[@]+"${hidden[@]}"}; do umount "$f"; done; rm -rf "$work"' EXIT
hide_remote_agents "$work/not_executable" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GTEST_COLOR=no
mapfile -t flags < <("$here/mpi_flags.sh" "$mpiexec")
cat >"$work/ctest_env.cmake" <<CMAKE
include("$root/cmake/mpi_local_ctest.cmake")
execute_process(COMMAND "$bin" "--gtest_filter=$filter" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit \${rc}")
endif()
CMAKE
failed=0
# shellcheck disable=SC2016  # expanded by the inner bash
run_case offline_env bash -c '. "$0/ci/offline_env.sh" && exec "$@"' "$root" \
  "$mpiexec" -np 2 ${flags[@]+"${flags[@]}"} "$bin" --gtest_filter="$filter" || failed=1
# shellcheck disable=SC2016
run_case singleton bash -c '. "$0/ci/offline_env.sh" && exec "$@"' "$root" \
  "$bin" --gtest_filter="$filter" || failed=1
run_case mpirun.sh env TANDEM="$bin" TANDEM_MPIRUN="$mpiexec" "$here/mpirun.sh" 2 --gtest_filter="$filter" || failed=1
run_case ctest cmake -P "$work/ctest_env.cmake" || failed=1
exit $failed
