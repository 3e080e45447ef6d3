#!/usr/bin/env bash
# The `cluster` label's faults: a 2-host collectives sweep (one rank a host) is hit, once its first records are written,
# by the fault named, and must end with exit 5 within the watchdog plus the launcher's grace, the log naming the host or
# rank at fault (the row's last column: the watchdog's peer report, or the launcher's own message); leave no rank or
# daemon of the job running on any host; and keep the records written so far valid, flagged incomplete (`tandem gate`
# exit 6). Prints the seconds from fault to exit.
# usage: cluster_fault_test.sh FAULT TANDEM_BINARY   (FAULT: a row of faults.tsv)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cluster_env.sh"
fault=$1 tandem=$2
export TANDEM=$tandem TANDEM_LAUNCH_GRACE=10
watchdog=5  # the seconds each fault may take to end the job: faults.tsv
fail() { echo "FAIL ($fault): $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/cluster-fault.XXXXXX")
log=$work/log
# After the job: the link back up, paused processes resumed. A host cut off cannot be cleaned
# up by anyone until it is reachable again (on a real cluster too); then nothing may be left.
heal() {
  ip -n "$(cluster_ns node2)" link set eth0 up 2>/dev/null || true
  ip netns exec "$(cluster_ns node2)" tc qdisc del dev eth0 root 2>/dev/null || true
  ip netns exec "$(cluster_ns node2)" nft delete table inet tandem_lossy 2>/dev/null || true
  node_pids node2 'tandem' | xargs -r kill -CONT 2>/dev/null || true
}
trap 'heal; rm -rf "$work"' EXIT

# What each row of faults.tsv does to node2 (or to the job).
cut_link() { ip -n "$(cluster_ns node2)" link set eth0 down; }
# 1 kbit/s, so a call after the fault (≥ 2 KiB) outlasts the watchdog: at 8 kbit/s a 2 KiB call
# took ~2 s and the sweep crawled on for minutes. No sch_netem here: a token bucket slows it.
throttle_link() { ip netns exec "$(cluster_ns node2)" tc qdisc add dev eth0 root tbf rate 1kbit burst 1600 latency 60s; }
# 50 % of node2's outgoing packets dropped (nftables' random numgen): TCP's retransmission
# back-off stalls calls for seconds, and Open MPI's keepalive gives up on the link.
drop_packets() {
  ip netns exec "$(cluster_ns node2)" nft -f - <<'NFT'
table inet tandem_lossy {
  chain out { type filter hook output priority 0; oifname "eth0" numgen random mod 100 < 50 drop; }
}
NFT
}
kill_processes() { node_pids node2 '^(tandem|orted|slurmstepd)$' | xargs -r kill -KILL; }
stop_ranks() { node_pids node2 '^tandem$' | xargs -r kill -STOP; }
cancel_step() { "$here/cluster_exec.sh" node1 scancel --signal=KILL --full "$(cat "$work/jobid")"; }
IFS=$'\t' read -r _ launcher action bound names < <(grep -P "^$fault\t" "$here/faults.tsv") ||
  fail "no such fault; hint: one of $(grep -v '^#' "$here/faults.tsv" | cut -f1 | paste -sd' ')"

# Slurm may still be completing the previous fault's job on node2.
for _ in $(seq 1 60); do
  [[ $("$here/cluster_exec.sh" node1 sinfo -h -N -t idle -o %N | sort -u | wc -l) -ge 2 ]] && break; sleep 1; done
sweep=(collectives -b 1K -e 64M --ops psum,all_gather -n 100 --watchdog-timeout "$watchdog" --out "$work/out")
if [[ $launcher == mpirun ]]; then
  "$here/cluster_mpirun.sh" 2 1 "${sweep[@]}" > "$log" 2>&1 &
else
  "$here/cluster_exec.sh" node1 "$here/../launch/srun.sh" -N 2 --ntasks-per-node=1 -J "tandem-$fault" -- "${sweep[@]}" \
    > "$log" 2>&1 &
fi
job=$!
for _ in $(seq 1 600); do [[ -s $work/out/records.json ]] && break; sleep 0.1; done
[[ -s $work/out/records.json ]] || { kill $job 2>/dev/null || true; fail "no records after 60 s: $(tail -5 "$log")"; }
"$here/cluster_exec.sh" node1 squeue -h -n "tandem-$fault" -o %i > "$work/jobid" 2>/dev/null || true
start=$(date +%s%N)
"$action"
rc=0
timeout 120 tail --pid=$job -f /dev/null || { cat "$log"; fail "the job still runs 120 s after the fault (its log above)"; }
wait $job || rc=$?
seconds=$(( ($(date +%s%N) - start) / 1000000000 ))
cat "$log"
[[ $rc == 5 ]] || fail "exit $rc, want 5"
(( seconds <= bound )) || fail "ended $seconds s after the fault, want ≤ $bound"
grep -qE "$names" "$log" || fail "the log does not name what stalled (want /$names/)"
heal
healed=$(date +%s)
for _ in $(seq 1 60); do [[ -z $(node_pids node2 '^(tandem|orted|slurmstepd)$') ]] && break; sleep 1; done
left=$(node_pids node2 '^(tandem|orted|slurmstepd)$'; node_pids node1 '^(mpirun|tandem|orted|srun)$')
[[ -z $left ]] || fail "still running 60 s after the job: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ,)")"
cleared=$(( $(date +%s) - healed ))
"${TANDEM_PYTHON:-python3}" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["records"] and not d.get("complete")' \
  "$work/out/records.json" || fail "the records written before the fault are not valid and incomplete"
grc=0; "$tandem" gate --current "$work/out/records.json" --baseline "$work/out/records.json" > /dev/null 2>&1 || grc=$?
[[ $grc == 6 ]] || fail "tandem gate on the partial run: exit $grc, want 6 (incomplete)"
echo "PASS: $fault under $launcher: exit 5 in $seconds s after the fault; nothing left ${cleared} s after healing;" \
     "partial records valid, gate 6"
