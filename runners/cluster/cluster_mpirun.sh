#!/usr/bin/env bash
# runners/launch/mpirun.sh across the one-machine cluster: started on node1, K ranks on each of the first H hosts (ranks
# 0..K-1 on node1), Open MPI's TCP transport on the hosts' eth0 only (its shared memory only between ranks of one host),
# daemons started through cluster_rsh.sh as ssh would start them. Variables named in TANDEM_CLUSTER_FORWARD are
# forwarded to every rank (-x), as a job on a real cluster must. usage: cluster_mpirun.sh H K [tandem args...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cluster_env.sh"
hosts=${1:?usage: cluster_mpirun.sh HOSTS RANKS_PER_HOST [tandem args...]} per=${2:?ranks per host}; shift 2
[[ $hosts =~ ^[1-9]$ && $per =~ ^[1-9]$ && $hosts -le $(cluster_nodes | wc -l) ]] || {
  echo "cluster_mpirun: $hosts hosts × $per ranks; hint: the cluster has $(cluster_nodes | wc -l) hosts" >&2; exit 4; }
list=$(cluster_nodes | head -n "$hosts" | sed "s/\$/:$per/" | paste -sd,)
# --bind-to none: Open MPI binds a rank to a core of the machine's topology (core 0 on every
# host); here each host's processes already run on the host's own cores (cluster_exec.sh).
args="--host $list --map-by ppr:$per:node --bind-to none --mca pml ob1 --mca btl self,vader,tcp"
args+=" --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0"
for v in ${TANDEM_CLUSTER_FORWARD:-}; do args+=" -x $v"; done
exec "$here/cluster_exec.sh" node1 env OMPI_MCA_plm_rsh_agent="$here/cluster_rsh.sh" \
  TANDEM_MPIRUN_ARGS="$args ${TANDEM_MPIRUN_ARGS:-}" "$here/../launch/mpirun.sh" $((hosts * per)) "$@"
