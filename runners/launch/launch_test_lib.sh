#!/usr/bin/env bash
# Shared by the launch fault tests (single_rank_fault_test.sh, multi_rank_fault_test.sh): start a job through mpirun.sh
# under `timeout`, then check its exit code and log. The caller sets `here` (this folder), `mpiexec`, `limit` (seconds
# before a job counts as hung), `log` and defines fail(); mpirun_job sets rc and elapsed. mpirun_job TANDEM_BINARY NP
# [ENV=V...] -- tandem args
mpirun_job() {
  local bin=$1 np=$2; shift 2
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  start=$SECONDS
  env ${envs[@]+"${envs[@]}"} TANDEM="$bin" TANDEM_MPIRUN="$mpiexec" \
    timeout -k 10 "$limit" "$here/mpirun.sh" "$np" "$@" > "$log" 2>&1
  rc=$?
  elapsed=$((SECONDS - start))
  cat "$log"
}
want_rc() {
  [[ $rc != 124 && $rc != 137 ]] || fail "the job hung: killed by timeout after ${limit} s"
  [[ $rc == "$1" ]] || fail "exit $rc, want $1"
}
want_log() { grep -qE -- "$1" "$log" || fail "the log lacks /$1/"; }
