#!/usr/bin/env bash
# mpirun.sh passes Open MPI-only flags only to Open MPI: a fake mpirun on PATH answers
# --version as Open MPI or as MPICH's Hydra and prints the arguments it was launched with.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for kind in openmpi mpich; do
  mkdir -p "$fake/$kind"
  if [[ $kind == openmpi ]]; then version='mpirun (Open MPI) 4.1.4'; else version='HYDRA build details:\n    Version: 4.1'; fi
  printf '#!/bin/sh\n[ "$1" = --version ] && { printf "%s\\n"; exit 0; }\necho "ARGS: $*"\n' "$version" > "$fake/$kind/mpirun"
  chmod +x "$fake/$kind/mpirun"
done
args() { PATH="$fake/$1:$PATH" TANDEM=/bin/true "$here/mpirun.sh" 2 collectives -o psum; }
ompi=$(args openmpi) || fail "mpirun.sh under a fake Open MPI failed: $ompi"
grep -q -- "ARGS: -np 2 --oversubscribe" <<<"$ompi" || fail "Open MPI: no --oversubscribe: $ompi"
if [[ $(id -u) == 0 ]]; then grep -q -- "--allow-run-as-root" <<<"$ompi" || fail "Open MPI as root: no --allow-run-as-root: $ompi"; fi
grep -q -- "--mca oob_tcp_keepalive_time 5 " <<<"$ompi" || fail "Open MPI: no daemon keepalive: $ompi"
grep -q -- "collectives -o psum$" <<<"$ompi" || fail "Open MPI: tandem's arguments not passed on: $ompi"
mpich=$(args mpich) || fail "mpirun.sh under a fake MPICH failed: $mpich"
grep -q -- "ARGS: -np 2 $here/rank_env.sh /bin/true collectives -o psum$" <<<"$mpich" ||
  fail "MPICH: want no Open MPI flags, got: $mpich"
echo "PASS: mpirun.sh adds --oversubscribe/--allow-run-as-root/keepalive for Open MPI only"
