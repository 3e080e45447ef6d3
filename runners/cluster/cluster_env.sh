# shellcheck shell=bash
# Sourced by the cluster scripts: where the one-machine cluster keeps its state and how its
# parts are named. Hosts are network namespaces `tdm-nodeN` on a bridge in `tdm-sw`, subnet
# 10.231.0.0/24 (node N at .N); Slurm and munge keep every file under $CLUSTER_DIR, so
# cluster_down.sh removes all of it and nothing under /etc/slurm or /run/munge is touched.
CLUSTER_DIR=${TANDEM_CLUSTER_DIR:-/run/tandem-cluster}
CLUSTER_NET=10.231.0
export SLURM_CONF=$CLUSTER_DIR/slurm.conf
cluster_nodes() { cat "$CLUSTER_DIR/nodes" 2>/dev/null; }
cluster_ns() { echo "tdm-$1"; }
