#!/usr/bin/env bash
# `tandem gate` on sweeps: the records of a real 2-rank sweep carry every timed iteration in
# timing.samples, so the gate compares them — SAME (exit 0) against an identical copy, SLOWER
# (exit 2) against a copy whose every sample is × 1.2. Also checks the nccl-tests closing
# lines and that each record holds -n samples.
# usage: sweep_gate_test.sh TANDEM MPIEXEC
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

python3 - "$work/a/records.json" "$work/slow.json" <<'PY' || fail "records or the slowed copy"
import json, sys
doc = json.load(open(sys.argv[1]))
recs = doc["records"]
# psum: tandem + raw, out + in place; all_gather: tandem + raw, out of place; 3 sizes.
assert len(recs) == 3 * (4 + 2), len(recs)
for r in recs:
    s = r["timing"]["samples"]
    assert len(s) == 40 and all(x > 0 for x in s), r["case"]
for r in recs:
    t = r["timing"]
    t["samples"] = [x * 1.2 for x in t["samples"]]
    for k in ("median", "min", "max", "p99", "mean"):
        t[k] *= 1.2
    for m in r["metrics"]:
        m["value"] /= 1.2
json.dump(doc, open(sys.argv[2], "w"))
PY

set +e
"$tandem" gate --baseline "$work/a/records.json" --current "$work/a/records.json" > "$work/same.txt" 2>&1
same=$?
"$tandem" gate --baseline "$work/a/records.json" --current "$work/slow.json" > "$work/slow.txt" 2>&1
slow=$?
set -e
[[ $same == 0 ]] || { cat "$work/same.txt" >&2; fail "identical sweeps: gate exit $same, want 0 (SAME)"; }
grep -q "SAME" "$work/same.txt" || fail "identical sweeps: no SAME verdict"
[[ $slow == 2 ]] || { cat "$work/slow.txt" >&2; fail "× 1.2 sweep: gate exit $slow, want 2 (SLOWER)"; }
grep -q "SLOWER" "$work/slow.txt" || fail "× 1.2 sweep: no SLOWER verdict"
echo "PASS: gate SAME on identical sweeps, SLOWER on the × 1.2 copy"
