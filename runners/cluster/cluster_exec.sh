#!/usr/bin/env bash
# Runs a command on a host of the one-machine cluster: inside its network namespace (its own address and links) and the
# host's mount and UTS namespaces (its /etc/hosts and /tmp, and its hostname, so gethostname(), Open MPI and Slurm all
# see that host), on the host's own cores. It keeps the host's root (a chroot stays one) and the caller's working
# directory. usage: cluster_exec.sh NODE COMMAND [ARGS...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cluster_env.sh"
node=${1:?usage: cluster_exec.sh NODE COMMAND [ARGS...]}; shift
[[ -s $CLUSTER_DIR/hosts/$node/pid ]] || {
  echo "cluster_exec: no host '$node' (nodes: $(cluster_nodes | xargs))" >&2
  echo "  hint: start the cluster with runners/cluster/cluster_up.sh" >&2; exit 4; }
exec taskset -c "$(cat "$CLUSTER_DIR/hosts/$node/cpus")" \
  nsenter --target "$(cat "$CLUSTER_DIR/hosts/$node/pid")" --net --mount --uts --root --wd="$PWD" -- "$@"
