#!/usr/bin/env bash
# docs/MULTINODE.md's cross-host figures: on the cluster of runners/cluster/cluster_up.sh 2, 3
# rounds, each running in turn the collectives sweep and the dot/LSTM lockstep perf cases at 2
# ranks on one host (shared memory) and on 2 hosts (one rank each, TCP over the links); then
# iperf3 between the hosts. Then: gzip each records.json here, and summarize.py prints the tables.
# usage: measure.sh OUT   (TANDEM: the binary, default build/tandem)
set -uo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
out=${1:?usage: measure.sh OUT}
export TANDEM=${TANDEM:-$root/build/tandem}
F='^(dot/perf/N:1024/(alg:F32_F32_F32|blas_sgemm)|lstm/perf/deepbench/B:64/T:25/I:512/H:512/L:1/bidi:0/(fwd|train))$'
sweep=(collectives -b 1K -e 16M -f 4 --ops psum,all_gather -n 20 -w 5)
perf=(run -q --profile nightly --backend cpu --filter "$F" -n 5 -w 1)
for r in 1 2 3; do
  echo "round $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$root/runners/launch/mpirun.sh" 2 "${sweep[@]}" --out "$out/r$r-sweep-local" > /dev/null
  "$root/runners/cluster/cluster_mpirun.sh" 2 1 "${sweep[@]}" --out "$out/r$r-sweep-hosts" > /dev/null
  "$root/runners/launch/mpirun.sh" 2 "${perf[@]}" --out "$out/r$r-perf-local" > /dev/null
  "$root/runners/cluster/cluster_mpirun.sh" 2 1 "${perf[@]}" --out "$out/r$r-perf-hosts" > /dev/null
done
"$root/runners/cluster/cluster_exec.sh" node1 iperf3 -s -D -1
sleep 1
"$root/runners/cluster/cluster_exec.sh" node2 iperf3 -c node1 -t 5 -J > "$out/iperf3-node2-to-node1.json"
