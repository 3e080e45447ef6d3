#!/usr/bin/env bash
# The gate on a slow link: the same 2-host collectives sweep, once with both hosts' links at 100 Mbit/s (healthy) and
# once at 25 Mbit/s (degraded), each a token bucket (this kernel has no netem) with the same burst, so the bucket shapes
# both runs' calls in the same proportion. Both runs are strongly link-bound, as inter-node collectives are on a real
# cluster: the ratio is invariant only while the link dominates both calls (a veth link at full speed, or a bucket whose
# burst is below rate/HZ, moved rows' ratios by 10–30 %: docs/MULTINODE.md). `tandem gate` judges a tandem row on its
# time over the raw MPI call of the same run (--interleave 1: they take turns per iteration), so the slowdown cancels:
# exit 0, no SLOWER row, the raw rows shown as RAW. The same runs without their raw rows gate on absolute time and must
# be SLOWER (exit 2): the check can fail. The ratio moves a little between two runs of the same code (an A/A pair at 100
# Mbit once moved a psum row's tandem/raw by 5.1 %): the healthy sweep runs twice, and the minimum effect is twice their
# largest tandem/raw change (5–50 %, far below the alone check's +100 %). A SLOWER still gets one more throttled run
# before the test fails; both gates are printed. usage: cluster_slow_link_gate_test.sh TANDEM_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cluster_env.sh"
export TANDEM=$1
# Its ranks wait on the link beside ctest's CPU-bound tests: they yield their core, not spin (not in the
# fault tests: the 8 kbit/s fault of then, yielding, ended 26–27 s after the fault, over its 25 s bound).
export OMPI_MCA_mpi_yield_when_idle=1
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/cluster-gate.XXXXXX")
throttle() {  # throttle add RATE | throttle del
  for n in node1 node2; do
    ip netns exec "$(cluster_ns $n)" tc qdisc "$1" dev eth0 root ${2:+tbf rate $2 burst 4kb latency 5s}; done; }
trap 'throttle del 2>/dev/null || true; [[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
# Sizes where the link, not the load, sets the time: 90–250 ms a call at 25 Mbit/s (512K doubled the run).
sweep=(collectives -b 128K -e 256K -n 20 -w 2 --interleave 1 --ops psum,all_gather)
sweep_to() { "$here/cluster_mpirun.sh" 2 1 "${sweep[@]}" --out "$work/$1" > "$work/$1.log" 2>&1 ||
  { cat "$work/$1.log" >&2; fail "the $1 sweep exited $?"; }; }
gate() {  # gate BASELINE CURRENT NAME: prints the exit code; the report in $work/NAME.txt
  local code=0
  "$TANDEM" gate --min-effect "$min_effect" --baseline "$1" --current "$2" > "$work/$3.txt" 2>&1 || code=$?
  echo "$code"
}
ratio_spread() {  # ratio_spread RUN_A RUN_B: the largest |change| of a tandem row's median over its raw call's
  "${TANDEM_PYTHON:-python3}" - "$work/$1/records.json" "$work/$2/records.json" <<'PY'
import json, statistics, sys
def ratios(path):
    med = {r["case"]: statistics.median(r["timing"]["samples"]) for r in json.load(open(path))["records"]
           if r["verdict"] == "pass" and r.get("timing", {}).get("samples")}
    return {c: t / med[c.replace("call:tandem", "call:raw")] for c, t in med.items()
            if "call:tandem" in c and c.replace("call:tandem", "call:raw") in med}
a, b = ratios(sys.argv[1]), ratios(sys.argv[2])
if not a or a.keys() != b.keys():
    sys.exit(f"the A/A runs' tandem/raw pairs differ: {sorted(a.keys() ^ b.keys())[:3]}")
print(f"{max(abs(b[c] / a[c] - 1) for c in a):.4f}")
PY
}
throttle add 100mbit
sweep_to plain
sweep_to plain_again
throttle del
aa=$(ratio_spread plain plain_again) || fail "no A/A spread from the two healthy runs"
min_effect=$(awk -v s="$aa" 'BEGIN { e = 2 * s; e = e < 0.05 ? 0.05 : e; printf "%.4f", (e > 0.5 ? 0.5 : e) }')
echo "A/A at 100 Mbit: tandem/raw moved up to $(awk -v s="$aa" 'BEGIN { printf "%.1f", 100 * s }') %; minimum effect $min_effect"
for attempt in 1 2; do
  throttle add 25mbit
  sweep_to slow
  throttle del
  code=$(gate "$work/plain/records.json" "$work/slow/records.json" ratio)
  [[ $code == 0 ]] && ! grep -q "| SLOWER | time" "$work/ratio.txt" && break
  echo "attempt $attempt: gate exit $code on the throttled link:"
  grep -E "^\| [0-9]+ \||\| (SLOWER|WORSE|MISSING) \|" "$work/ratio.txt" || true
  [[ $attempt == 2 ]] && { cat "$work/ratio.txt" >&2; fail "a link slowed alike for tandem and the raw call was gated a regression twice"; }
done
grep -q "call:raw/.* | RAW | time | .* | +[0-9]*[0-9][0-9][0-9]\.[0-9]% |" "$work/ratio.txt" ||
  fail "no raw row shown ≥ 100 % slower: was the link throttled? $(grep '| RAW |' "$work/ratio.txt" | head -3)"
for run in plain slow; do  # both runs without their raw rows
  "${TANDEM_PYTHON:-python3}" - "$work/$run/records.json" "$work/$run-alone.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["records"] = [r for r in doc["records"] if r["params"]["impl"] == "tandem"]
json.dump(doc, open(sys.argv[2], "w"))
PY
done
code=$(gate "$work/plain-alone.json" "$work/slow-alone.json" alone)
[[ $code == 2 ]] && grep -q "call:tandem/.* | SLOWER | time |" "$work/alone.txt" ||
  { cat "$work/alone.txt" >&2; fail "throttled tandem rows without their raw partners: gate exit $code, want 2 (SLOWER on time)"; }
slowest=$(grep -o "call:raw/[^|]*| RAW | time | [^|]*| [^|]*| +[0-9.]*%" "$work/ratio.txt" | awk -F'|' '{print $NF}' | sort -t+ -k2 -g | tail -1)
echo "PASS: link throttled (raw calls up to$slowest; minimum effect $min_effect from the A/A pair): ratio gate exit 0 with no SLOWER row; without the raw rows, SLOWER (exit 2)"
