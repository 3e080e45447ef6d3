#!/usr/bin/env bash
# Stops the one-machine cluster and removes everything cluster_up.sh made: every process in its namespaces (slurmd,
# slurmctld, any rank or orted left by a failed job), munged, the network namespaces (each host's mount and UTS
# namespaces end with its holder process), and $CLUSTER_DIR. Safe to run twice. Exit 0, or 5 if something could not be
# removed (named).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cluster_env.sh"
namespaces=$(cluster_namespaces)
for sig in TERM KILL; do
  for ns in $namespaces; do ip netns pids "$ns" | xargs -r kill -s "$sig" 2>/dev/null; done
  [[ -f $CLUSTER_DIR/munged.pid ]] && kill -s "$sig" "$(cat "$CLUSTER_DIR/munged.pid")" 2>/dev/null
  sleep 1
done
for ns in $namespaces; do ip netns del "$ns"; done
[[ -e $CLUSTER_DIR/made-etc-hosts && ! -s /etc/hosts ]] && rm -f /etc/hosts
rm -rf "$CLUSTER_DIR"
left=$(cluster_namespaces; ls -d "$CLUSTER_DIR" 2>/dev/null)
[[ -z $left ]] || { echo "cluster_down: left behind: $left" >&2; exit 5; }
echo "cluster_down: removed ${namespaces:-nothing}" | tr '\n' ' '; echo
