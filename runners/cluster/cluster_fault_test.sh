#!/usr/bin/env bash
# The `cluster` label's faults (issue 28 §3): a 2-host collectives sweep (one rank a host) is
# hit, once its first records are written, by the fault named, and must end with exit 5
# within the watchdog plus the launcher's grace, naming the collective that stalled; leave no
# rank or daemon of the job running on any host; and keep the records written so far valid,
# flagged incomplete (`tandem gate` exit 6). Prints the seconds from fault to exit.
# usage: cluster_fault_test.sh FAULT TANDEM_BINARY   (FAULT: a row of the table below)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cluster_env.sh"
fault=$1 tandem=$2
export TANDEM=$tandem TANDEM_LAUNCH_GRACE=10
watchdog=5 bound=$((5 + 10 + 10))  # watchdog + grace + slack for a 2-core machine
fail() { echo "FAIL ($fault): $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/cluster-fault.XXXXXX")
log=$work/log
# node_pids NODE REGEX: the processes on NODE whose command matches.
node_pids() { ip netns pids "$(cluster_ns "$1")" | xargs -r ps -o pid=,comm= -p | awk -v want="$2" '$2 ~ want {print $1}'; }
# After the job: the link back up, paused processes resumed. A host cut off cannot be cleaned
# up by anyone until it is reachable again (on a real cluster too); then nothing may be left.
heal() {
  ip -n "$(cluster_ns node2)" link set eth0 up 2>/dev/null || true
  ip netns exec "$(cluster_ns node2)" tc qdisc del dev eth0 root 2>/dev/null || true
  node_pids node2 'tandem' | xargs -r kill -CONT 2>/dev/null || true
}
trap 'heal; rm -rf "$work"' EXIT

# fault | launcher | what it does to node2 (or the job)
link_down() { ip -n "$(cluster_ns node2)" link set eth0 down; }
# 8 kbit/s: a call of a few KiB outlasts the watchdog. (This kernel has no sch_netem, so a
# link that delays or loses packets cannot be made here; a token bucket slows it.)
slow_link() { ip netns exec "$(cluster_ns node2)" tc qdisc add dev eth0 root tbf rate 8kbit burst 1600 latency 60s; }
kill_host() { node_pids node2 '^(tandem|orted|slurmstepd)$' | xargs -r kill -KILL; }
pause_host() { node_pids node2 '^tandem$' | xargs -r kill -STOP; }
scancel_step() { "$here/cluster_exec.sh" node1 scancel --signal=KILL --full "$(cat "$work/jobid")"; }
declare -A launcher=([slow_link]=mpirun [link_down]=mpirun [kill_host]=mpirun [pause_host]=mpirun [scancel_step]=srun [link_down_srun]=srun)
declare -A action=([slow_link]=slow_link [link_down]=link_down [kill_host]=kill_host [pause_host]=pause_host [scancel_step]=scancel_step
                   [link_down_srun]=link_down)
[[ -n ${launcher[$fault]:-} ]] || fail "no such fault; hint: one of ${!launcher[*]}"

# Slurm may still be completing the previous fault's job on node2.
for _ in $(seq 1 60); do
  [[ $("$here/cluster_exec.sh" node1 sinfo -h -N -t idle -o %N | sort -u | wc -l) -ge 2 ]] && break; sleep 1; done
sweep=(collectives -b 1K -e 64M --ops psum,all_gather -n 100 --watchdog-timeout "$watchdog" --out "$work/out")
if [[ ${launcher[$fault]} == mpirun ]]; then
  "$here/cluster_mpirun.sh" 2 1 "${sweep[@]}" > "$log" 2>&1 &
else
  "$here/cluster_exec.sh" node1 "$here/../launch/srun.sh" -N 2 --ntasks-per-node=1 -J "tandem-$fault" -- "${sweep[@]}" \
    > "$log" 2>&1 &
fi
job=$!
for _ in $(seq 1 600); do [[ -s $work/out/records.json ]] && break; sleep 0.1; done
[[ -s $work/out/records.json ]] || { kill $job; fail "no records after 60 s: $(tail -5 "$log")"; }
"$here/cluster_exec.sh" node1 squeue -h -n "tandem-$fault" -o %i > "$work/jobid" 2>/dev/null || true
start=$(date +%s%N)
"${action[$fault]}"
rc=0
timeout 120 tail --pid=$job -f /dev/null || fail "the job still runs 120 s after the fault"
wait $job || rc=$?
seconds=$(( ($(date +%s%N) - start) / 1000000000 ))
cat "$log"
[[ $rc == 5 ]] || fail "exit $rc, want 5"
(( seconds <= bound )) || fail "ended $seconds s after the fault, want ≤ $bound"
grep -qE "no progress for|exited on signal|KILLED|CANCELLED|lost communication" "$log" || fail "nothing says why"
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
echo "PASS: $fault under ${launcher[$fault]}: exit 5 in $seconds s after the fault; nothing left ${cleared} s after healing;" \
     "partial records valid, gate 6"
