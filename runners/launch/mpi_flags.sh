#!/usr/bin/env bash
# Prints the launcher flags tandem's scripts add for the mpirun given as $1 (default mpirun), one per line. Only Open
# MPI takes them (MPICH's Hydra rejects unknown flags), so they are added only when `mpirun --version` says Open MPI:
#   --oversubscribe       more ranks than cores (CI machines, a laptop)
#   --allow-run-as-root   Open MPI refuses root without it (containers)
#   --mca oob_tcp_keepalive_*  a daemon cut off from mpirun (a link down) notices within about
#                         11 s of quiet (probes after 5 s, 3 missed 2 s apart), not Open MPI's 480 s
# usage: mpi_flags.sh [MPIRUN]
set -uo pipefail
mpirun=${1:-mpirun}
version=$("$mpirun" --version 2>&1) || true
if grep -qE "Open MPI|OpenRTE" <<<"$version"; then
  echo --oversubscribe
  [[ $(id -u) == 0 ]] && echo --allow-run-as-root
  printf '%s\n' --mca oob_tcp_keepalive_time 5 --mca oob_tcp_keepalive_intvl 2 --mca oob_tcp_keepalive_probes 3
fi
exit 0
