#!/usr/bin/env bash
# `tandem gate` on sweeps: the records of a real 2-rank sweep carry every timed iteration in timing.samples, so the gate
# compares them — SAME (exit 0) against an identical copy. A tandem row gates on its time over the raw call's: SLOWER
# (exit 2) when only the tandem samples are × 1.2, pass when every sample is × 1.5 (a slower link) or only the raw ones
# × 1.2 (shown as RAW); without its raw partner a tandem row gates on absolute time. Also checks the nccl-tests closing
# lines and that each record holds -n samples. usage: sweep_gate_test.sh TANDEM MPIEXEC
set -euo pipefail
tandem=${1:?usage: sweep_gate_test.sh TANDEM MPIEXEC}
mpiexec=${2:?usage: sweep_gate_test.sh TANDEM MPIEXEC}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Sizes where a row's iterations vary little on a loaded machine; 40 iterations per row.
"$mpiexec" -np 2 --oversubscribe --allow-run-as-root "$tandem" collectives -b 64K -e 256K -n 40 -w 3 \
  --ops psum,all_gather --out "$work/a" > "$work/sweep.log" 2>&1 || { cat "$work/sweep.log" >&2; fail "sweep exited non-zero"; }
grep -q "^# Out of bounds values : 0 OK" "$work/sweep.log" || fail "no nccl-tests closing line"
grep -Eq "^# Avg bus bandwidth    : [0-9.e+-]+" "$work/sweep.log" || fail "no Avg bus bandwidth line"

python3 - "$work/a/records.json" "$work" <<'PY' || fail "records or the slowed copies"
import json, sys
doc = json.load(open(sys.argv[1]))
recs = doc["records"]
# psum: tandem + raw, out + in place; all_gather: tandem + raw, out of place; 3 sizes.
assert len(recs) == 3 * (4 + 2), len(recs)
for r in recs:
    s = r["timing"]["samples"]
    assert len(s) == 40 and all(x > 0 for x in s), r["case"]
def scaled(calls, f, keep=("tandem", "raw")):  # a copy with the rows of `calls` × f, only `keep`'s rows
    out = json.loads(json.dumps(doc))
    out["records"] = [r for r in out["records"] if r["params"]["impl"] in keep]
    for r in (r for r in out["records"] if r["params"]["impl"] in calls):
        t = r["timing"]
        t["samples"] = [x * f for x in t["samples"]]
        for k in ("median", "min", "max", "p99", "mean"):
            t[k] *= f
        for m in r["metrics"]:
            m["value"] /= f
    return out
for name, copy in {"slow": scaled(["tandem"], 1.2), "link": scaled(["tandem", "raw"], 1.5),
                   "rawslow": scaled(["raw"], 1.2), "alone": scaled([], 1, ["tandem"]),
                   "aloneslow": scaled(["tandem"], 1.2, ["tandem"])}.items():
    json.dump(copy, open(f"{sys.argv[2]}/{name}.json", "w"))
PY

gate() {  # gate BASELINE CURRENT NAME WANT: the exit code and the summary in $work/NAME.txt
  local code=0
  "$tandem" gate --baseline "$1" --current "$2" > "$work/$3.txt" 2>&1 || code=$?
  [[ $code == "$4" ]] || { cat "$work/$3.txt" >&2; fail "$3: gate exit $code, want $4"; }
}
gate "$work/a/records.json" "$work/a/records.json" same 0
grep -q "| SAME | time/raw |" "$work/same.txt" || fail "identical sweeps: no SAME on time/raw"
gate "$work/a/records.json" "$work/slow.json" slow 2
grep -q "call:tandem/.* | SLOWER | time/raw |" "$work/slow.txt" || fail "tandem × 1.2: no SLOWER tandem row"
gate "$work/a/records.json" "$work/link.json" link 0
! grep -q "| SLOWER | time" "$work/link.txt" || fail "all × 1.5 (a slower link): a SLOWER row"
gate "$work/a/records.json" "$work/rawslow.json" rawslow 0
grep -q "call:raw/.* | RAW | time | .* | +20.0% |" "$work/rawslow.txt" || fail "raw × 1.2: its change not shown as RAW"
gate "$work/alone.json" "$work/aloneslow.json" alone 2
grep -q "call:tandem/.* | SLOWER | time |" "$work/alone.txt" || fail "tandem rows without raw partners: not gated absolutely"
echo "PASS: gate SAME on identical sweeps; on time/raw: SLOWER for tandem × 1.2, pass for a slower link and a slower raw call"
