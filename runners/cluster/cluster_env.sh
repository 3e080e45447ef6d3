# shellcheck shell=bash
# Sourced by the cluster scripts: where the one-machine cluster keeps its state and how its
# parts are named. Hosts are network namespaces `NAME-nodeN` on a bridge in `NAME-sw` (NAME:
# TANDEM_CLUSTER_NAME, default tdm; ctest's cluster is another, so the two never meet), subnet
# 10.231.0.0/24 (node N at .N); Slurm and munge keep every file under $CLUSTER_DIR, so
# cluster_down.sh removes all of it and nothing under /etc/slurm or /run/munge is touched.
CLUSTER_NAME=${TANDEM_CLUSTER_NAME:-tdm}
CLUSTER_DIR=/run/tandem-cluster-$CLUSTER_NAME
CLUSTER_NET=10.231.0
export SLURM_CONF=$CLUSTER_DIR/slurm.conf
cluster_nodes() { cat "$CLUSTER_DIR/nodes" 2>/dev/null; }
cluster_ns() { echo "$CLUSTER_NAME-$1"; }
# The namespaces of this cluster that exist now.
cluster_namespaces() { ip netns list | awk -v p="$CLUSTER_NAME-" 'index($1, p) == 1 {print $1}'; }
# node_pids NODE REGEX: the live processes on host NODE whose command name matches. A zombie
# (state Z) has ended and only waits for its parent, or this machine's PID 1, to reap it: on a
# loaded runner that took seconds, and counting one as "left running" failed the fault tests.
node_pids() {
  ip netns pids "$(cluster_ns "$1")" | xargs -r ps -o pid=,stat=,comm= -p |
    awk -v want="$2" '$2 !~ /^Z/ && $3 ~ want {print $1}'
}
# alive PID...: those of the PIDs whose process still runs (not gone, not a zombie).
alive() { local p; for p in "$@"; do [[ -d /proc/$p && $(ps -o stat= -p "$p") != Z* ]] && echo "$p"; done; return 0; }
