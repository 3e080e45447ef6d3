#!/usr/bin/env bash
# Launch tandem under Slurm: runners/launch/srun.sh [srun args...] -- [tandem args...]
# e.g. runners/launch/srun.sh -N 8 --ntasks-per-node=8 --gpus-per-node=8 -- collectives --ops psum -b 8 -e 1G
# How srun ended is mapped onto the exit-code contract by supervise.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tandem=${TANDEM:-$here/../../build/tandem}
srun_args=()
while [[ $# -gt 0 && $1 != -- ]]; do srun_args+=("$1"); shift; done
[[ ${1:-} == -- ]] && shift
. "$here/supervise.sh"
# --kill-on-bad-exit: one rank's failure ends the step at once, not at its peers' watchdog.
supervise srun --mpi="${TANDEM_SRUN_MPI:-pmix}" --kill-on-bad-exit=1 ${srun_args[@]+"${srun_args[@]}"} "$here/rank_env.sh" "$tandem" "$@"
