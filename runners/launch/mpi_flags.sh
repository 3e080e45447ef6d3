#!/usr/bin/env bash
# Prints the launcher flags tandem's scripts add for the mpirun given as $1 (default
# mpirun), one per line. Only Open MPI takes them (MPICH's Hydra rejects unknown flags), so
# they are added only when `mpirun --version` says Open MPI:
#   --oversubscribe       more ranks than cores (CI machines, a laptop)
#   --allow-run-as-root   Open MPI refuses root without it (containers)
# usage: mpi_flags.sh [MPIRUN]
set -uo pipefail
mpirun=${1:-mpirun}
version=$("$mpirun" --version 2>&1) || true
if grep -qE "Open MPI|OpenRTE" <<<"$version"; then
  echo --oversubscribe
  [[ $(id -u) == 0 ]] && echo --allow-run-as-root
fi
exit 0
