#!/usr/bin/env bash
# A world of one rank while the launcher's environment says the job has more (a binary built against another MPI than
# the mpirun/srun that started it, or a launcher that did not start it): a clear bad-input error (exit 4) naming the
# variable, never a job of N independent 1-rank worlds. Also: with no launcher variable, one rank is fine. usage:
# world_size_one_test.sh TANDEM
set -uo pipefail
tandem=${1:?usage: world_size_one_test.sh TANDEM}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
sweep=(collectives -b 1024 -e 1024 -n 1 -w 0 --ops psum --out "$out")
for var in SLURM_NTASKS PMI_SIZE; do
  msg=$(env -u OMPI_COMM_WORLD_SIZE -u PMIX_SIZE "$var=4" "$tandem" "${sweep[@]}" 2>&1)
  rc=$?
  [[ $rc == 4 ]] || fail "$var=4 on a 1-rank world: exit $rc, want 4 (bad input): $msg"
  grep -q "MPI world has 1 rank but $var=4" <<<"$msg" || fail "$var=4: message does not say why: $msg"
  grep -q "hint:" <<<"$msg" || fail "$var=4: no hint: $msg"
done
msg=$(env -u SLURM_NTASKS -u PMI_SIZE -u OMPI_COMM_WORLD_SIZE -u PMIX_SIZE "$tandem" "${sweep[@]}" 2>&1) ||
  fail "a plain 1-rank run failed: $msg"
echo "PASS: world size 1 under a launcher's N = 4 is exit 4 with the reason"
