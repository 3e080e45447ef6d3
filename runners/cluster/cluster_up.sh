#!/usr/bin/env bash
# Starts a cluster of N hosts (default 2, at most 4) on this one machine: each host a network namespace on a bridge
# (every byte between hosts crosses a veth link), munge, and a real Slurm: slurmctld on node1, one slurmd per host.
# runners/cluster/cluster_down.sh removes it all. Needs root. Prints the seconds set-up took.
# usage: cluster_up.sh [N]     Exit: 0 up; 4 bad N or already up; 5 a part did not start.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cluster_env.sh"
n=${1:-2}
[[ $n =~ ^[1-4]$ ]] || { echo "cluster_up: '$n' hosts; hint: 1 to 4" >&2; exit 4; }
[[ $(id -u) == 0 ]] || { echo "cluster_up: needs root (network namespaces, slurmd)" >&2; exit 5; }
[[ ! -e $CLUSTER_DIR ]] || {
  echo "cluster_up: $CLUSTER_DIR exists; hint: runners/cluster/cluster_down.sh first" >&2; exit 4; }
start=$(date +%s%N)
die() { echo "cluster_up: $*" >&2; [[ -n ${TANDEM_CLUSTER_KEEP:-} ]] || "$here/cluster_down.sh" >&2; exit 5; }
trap 'die "failed at line $LINENO"' ERR
mkdir -p "$CLUSTER_DIR"/{log,state,spool}
chmod 755 "$CLUSTER_DIR"
nodes=$(seq -f 'node%g' 1 "$n")
echo "$nodes" > "$CLUSTER_DIR/nodes"

# The network: a bridge in its own namespace, one veth link to each host.
sw=$(cluster_ns sw)
ip netns add "$sw"
ip -n "$sw" link set lo up
ip -n "$sw" link add br0 type bridge
ip -n "$sw" link set br0 up
for i in $(seq 1 "$n"); do
  ns=$(cluster_ns "node$i")
  ip netns add "$ns"
  ip link add "v$i" netns "$sw" type veth peer name eth0 netns "$ns"
  ip -n "$sw" link set "v$i" master br0 up
  ip -n "$ns" addr add "$CLUSTER_NET.$i/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  # A connection with data in flight over a cut link gives up after ~25 s, not Linux's default
  # 15 min (tcp_retries2 15): how long an Open MPI daemon on a cut-off host outlives its job.
  ip netns exec "$ns" sysctl -qw net.ipv4.tcp_retries2=5
done
# A minimal root may have no /etc/hosts to mount each host's over: an empty one is made, and
# removed again by cluster_down.sh.
[[ -e /etc/hosts ]] || { : > /etc/hosts; touch "$CLUSTER_DIR/made-etc-hosts"; }
# Each host's own hostname, /etc/hosts and /tmp (Slurm's PMIx and Open MPI keep per-host
# files there): namespaces held by one idle process per host, which cluster_exec.sh enters.
for node in $nodes; do
  host=$CLUSTER_DIR/hosts/$node
  mkdir -p "$host/tmp" && chmod 1777 "$host/tmp"
  # Its own cores, as a host has: node i on core (i-1) mod cores, so nproc, rank_env.sh's
  # threads per rank and a rank's compute are a host's, not the whole machine's.
  cores=$(nproc); i=${node#node}
  echo $(( (i - 1) % cores )) > "$host/cpus"
  { echo "127.0.0.1 localhost"; for j in $(seq 1 "$n"); do echo "$CLUSTER_NET.$j node$j"; done; } > "$host/hosts"
  setsid -f taskset -c "$(cat "$host/cpus")" ip netns exec "$(cluster_ns "$node")" unshare --mount --uts --propagation private sh -c \
    'hostname "$0" && mount --bind "$1/tmp" /tmp && mount --bind "$1/hosts" /etc/hosts && echo $$ > "$1/pid" &&
     exec sleep infinity' "$node" "$host" </dev/null >/dev/null 2>&1
done
for node in $nodes; do
  for _ in $(seq 1 50); do [[ -s $CLUSTER_DIR/hosts/$node/pid ]] && break; sleep 0.1; done
  [[ -s $CLUSTER_DIR/hosts/$node/pid ]] || die "host $node did not come up"
done

# munge, with a key of this cluster's own, on a socket under $CLUSTER_DIR.
dd if=/dev/urandom of="$CLUSTER_DIR/munge.key" bs=1024 count=1 status=none
chmod 400 "$CLUSTER_DIR/munge.key"
munged --force --origin=127.0.0.1 --socket="$CLUSTER_DIR/munge.sock" --key-file="$CLUSTER_DIR/munge.key" \
  --pid-file="$CLUSTER_DIR/munged.pid" --log-file="$CLUSTER_DIR/log/munged.log" --seed-file="$CLUSTER_DIR/munge.seed"

"$here/slurm_conf.sh" "$n" > "$SLURM_CONF"
printf "CgroupPlugin=cgroup/v1\nCgroupMountpoint=/sys/fs/cgroup\n" > "$CLUSTER_DIR/cgroup.conf"
for node in $nodes; do mkdir -p "$CLUSTER_DIR/spool/$node"; done
"$here/cluster_exec.sh" node1 slurmctld -c
for node in $nodes; do "$here/cluster_exec.sh" "$node" slurmd; done
for _ in $(seq 1 60); do
  idle=$("$here/cluster_exec.sh" node1 sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
  [[ $idle == "$n" ]] && break
  sleep 0.5
done
[[ $idle == "$n" ]] || die "$idle of $n slurmd idle after 30 s (logs: $CLUSTER_DIR/log)"
trap - ERR
echo "cluster_up: $n hosts ($(echo $nodes)), Slurm idle, in $(( ($(date +%s%N) - start) / 1000000 )) ms"
