#!/usr/bin/env bash
# The `cluster` ctest label: tandem on the one-machine cluster of cluster_up.sh (4 hosts), one check per invocation.
# Each multi-host run must exit 0, name the host of every rank in its records as the launcher placed it, and move its
# bytes over the hosts' links. usage: cluster_test.sh CHECK TANDEM_BINARY [ARGS...]
#   up N | down | mpirun|srun H K SUITE PROFILE FILTER | placement mpirun|srun H K | refuses_oversize
# CLUSTER_FULL=1 runs every case of SUITE's PROFILE, not just FILTER.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cluster_env.sh"
check=$1 tandem=$2; shift 2
export TANDEM=$tandem OMPI_MCA_mpi_yield_when_idle=1  # waiting ranks yield (cluster_slow_link_gate_test.sh)
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/cluster-test.XXXXXX")  # on the shared filesystem, not a host's /tmp
trap 'rm -rf "$work"' EXIT

# Bytes node2 sent over its link so far.
node2_tx() { "$here/cluster_exec.sh" node2 cat /sys/class/net/eth0/statistics/tx_bytes; }

# launch mpirun|srun H K ARGS...: tandem ARGS on K ranks of each of the first H hosts.
launch() {
  local how=$1 h=$2 k=$3; shift 3
  if [[ $how == mpirun ]]; then "$here/cluster_mpirun.sh" "$h" "$k" "$@"
  else "$here/cluster_exec.sh" node1 "$here/../launch/srun.sh" -N "$h" --ntasks-per-node="$k" -- "$@"; fi
}

# Every multi-rank record names the host of each rank: rank r on node(r/K + 1).
hosts_in_records() {
  "${TANDEM_PYTHON:-python3}" - "$1" "$2" <<'PY' || fail "hosts per rank in $1"
import json, sys
recs = [r for r in json.load(open(sys.argv[1]))["records"] if r.get("multi_rank")]
k = int(sys.argv[2])
assert recs, "no multi-rank record"
for r in recs:
    hosts = [p["host"] for p in r["multi_rank"]["per_rank"]]
    assert hosts == [f"node{i // k + 1}" for i in range(len(hosts))], (r["case"], hosts)
print(f"{len(recs)} multi-rank records, hosts {hosts}")
PY
}

run_suite() {
  local how=$1 h=$2 k=$3 suite=$4 profile=$5 filter=$6 before after
  [[ -z ${CLUSTER_FULL:-} ]] || filter=.
  before=$(node2_tx)
  launch "$how" "$h" "$k" run --suite "$suite" --profile "$profile" --filter "$filter" -n 3 --out "$work/out" ||
    fail "$how exit $?"
  after=$(node2_tx)
  hosts_in_records "$work/out/records.json" "$k"
  # A collective moves its buffers between hosts; a lockstep suite only its agreement and gathers.
  local least=1000
  [[ $suite != collectives && $suite != vmap ]] || least=20000
  (( after - before > least )) || fail "node2 sent $((after - before)) bytes over its link, not > $least"
  echo "PASS: $suite ($filter) over $how, $h hosts × $k ranks; node2 sent $((after - before)) bytes over eth0"
}

# What a user's job sees: world rank, local rank and host, from the launcher's own variables
# through rank_env.sh, and the cores it may run on.
placement() {
  local how=$1 h=$2 k=$3 want got
  got=$(TANDEM=/bin/sh launch "$how" "$h" "$k" -c \
        'echo "$TANDEM_RANK $TANDEM_LOCAL_RANK $TANDEM_WORLD_SIZE $(hostname) cpus $(awk "/Cpus_allowed_list/ {print \$2}" /proc/self/status)"' |
      sort -n)
  # ... on its host's own core (cluster_up.sh: node i on core (i-1) mod cores), not bound elsewhere.
  want=$(for ((r = 0; r < h * k; r++)); do
           echo "$r $((r % k)) $((h * k)) node$((r / k + 1)) cpus $(( (r / k) % $(nproc --all) ))"; done)
  [[ $got == "$want" ]] || fail "placement under $how: got"$'\n'"$got"$'\n'"want"$'\n'"$want"
  echo "PASS: $how places rank r on node(r/$k+1) with local rank r%$k"
}

# A job larger than the cluster is refused before anything starts: exit 4 (bad input) and a
# hint naming how many hosts there are, from both launch paths.
refuses_oversize() {
  local rc out
  for how in mpirun srun; do
    rc=0; out=$(launch "$how" 9 1 list 2>&1) || rc=$?
    [[ $rc == 4 ]] || fail "$how on 9 hosts of a 4-host cluster: exit $rc, want 4: $out"
    grep -qE "hint: .*4 hosts|hint: .*node" <<<"$out" || fail "$how on 9 hosts: no hint naming the cluster's hosts: $out"
  done
  echo "PASS: 9 hosts refused with exit 4 by mpirun and srun"
}

# cluster_down.sh ends every process the cluster ran (daemons, ranks, orteds) and removes
# every namespace and file it made.
down_leaves_nothing() {
  local pids alive
  pids=$(for ns in $(cluster_namespaces); do ip netns pids "$ns"; done
         cat "$CLUSTER_DIR/munged.pid" 2>/dev/null)
  "$here/cluster_down.sh" || fail "cluster_down.sh exit $?"
  alive=$(alive $pids)
  [[ -z $alive ]] || fail "processes left: $(ps -o pid=,args= -p "$(echo $alive | tr ' ' ,)")"
  [[ -z $(cluster_namespaces) && ! -e $CLUSTER_DIR ]] || fail "a namespace or $CLUSTER_DIR is left"
  echo "PASS: $(echo $pids | wc -w) processes ended, namespaces and $CLUSTER_DIR removed"
}

case $check in
  up) [[ $(id -u) == 0 ]] || { echo "SKIP: the cluster needs root (network namespaces)"; exit 77; }
      "$here/cluster_down.sh" >/dev/null; "$here/cluster_up.sh" "$1" ;;
  down) down_leaves_nothing ;;
  mpirun|srun) run_suite "$check" "$@" ;;
  placement) placement "$@" ;;
  refuses_oversize) refuses_oversize ;;
  *) fail "unknown check '$check'" ;;
esac
