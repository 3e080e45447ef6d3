#!/usr/bin/env bash
# Launch tandem under Open MPI / MPICH: runners/launch/mpirun.sh [-np] NP [tandem args...]
# e.g. runners/launch/mpirun.sh 4 collectives -b 1K -e 16M --ops psum,all_gather
# Each rank runs runners/launch/rank_env.sh, which binds one GPU per local rank.
set -euo pipefail
[[ ${1:-} == -np || ${1:-} == -n ]] && shift
np=${1:?usage: mpirun.sh [-np] NP [tandem args...]}; shift
here=$(cd "$(dirname "$0")" && pwd)
tandem=${TANDEM:-$here/../../build/tandem}
extra=()
[[ $(id -u) == 0 ]] && extra+=(--allow-run-as-root)
# --oversubscribe lets CI run more ranks than cores; set TANDEM_MPIRUN_ARGS for real clusters.
exec mpirun -np "$np" --oversubscribe "${extra[@]}" ${TANDEM_MPIRUN_ARGS:-} "$here/rank_env.sh" "$tandem" "$@"
