#!/usr/bin/env bash
# Open MPI's remote agent for the one-machine cluster (OMPI_MCA_plm_rsh_agent): called as ssh would be, `cluster_rsh.sh
# [-x] HOST WORDS...`, it runs the words through a shell on HOST. Like ssh it starts from a bare environment, so a rank
# sees only what mpirun forwards (-x VAR): a job that works here does not lean on the launching shell's variables.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
while [[ ${1:-} == -* ]]; do shift; done  # ssh flags Open MPI may add (-x: no X11)
host=${1:?usage: cluster_rsh.sh HOST COMMAND...}; shift
exec "$here/cluster_exec.sh" "$host" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="${HOME:-/root}" sh -c "$*"
