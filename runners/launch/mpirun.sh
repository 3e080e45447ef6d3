#!/usr/bin/env bash
# Launch tandem under Open MPI / MPICH: runners/launch/mpirun.sh [-np] NP [tandem args...] e.g. runners/launch/mpirun.sh
# 4 collectives -b 1K -e 16M --ops psum,all_gather Each rank runs runners/launch/rank_env.sh, which binds one GPU per
# local rank and gives each rank its share of the CPU cores (docs/MULTINODE.md has cross-node examples). Open MPI-only
# flags (--oversubscribe, --allow-run-as-root) are added only when the mpirun is Open MPI's (mpi_flags.sh);
# TANDEM_MPIRUN picks another launcher (e.g. mpiexec.hydra), TANDEM_MPIRUN_ARGS adds flags for real clusters (host
# files, binding). supervise.sh maps how mpirun ended onto the exit-code contract and ends an mpirun that hangs after an
# abort.
set -euo pipefail
[[ ${1:-} == -np || ${1:-} == -n ]] && shift
np=${1:?usage: mpirun.sh [-np] NP [tandem args...]}; shift
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_local.sh"  # no ssh/rsh here (the GPU machine): Open MPI's one-host launcher
tandem=${TANDEM:-$here/../../build/tandem}
mpirun=${TANDEM_MPIRUN:-mpirun}
mapfile -t extra < <("$here/mpi_flags.sh" "$mpirun")
. "$here/supervise.sh"
# shellcheck disable=SC2086  # TANDEM_MPIRUN_ARGS is a list of flags
supervise "$mpirun" -np "$np" ${extra[@]+"${extra[@]}"} ${TANDEM_MPIRUN_ARGS:-} "$here/rank_env.sh" "$tandem" "$@"
