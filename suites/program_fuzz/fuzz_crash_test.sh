#!/usr/bin/env bash
# Crash isolation in `tandem fuzz` (case workers, runners/cli/case_workers.h): with a planted segfault in every vmap
# over an axis of size 1 (fault crash_vmap_axis_size_one), each crashing case is a failing record naming SIGSEGV and its
# seed, every other case still runs (the summary counts them all), and the run exits 1 (a failure, not an infrastructure
# error). The same run --in-process dies of the signal at the first such case. An engine error (a raised exception, not
# a crash) fails the run as well.
#   fuzz_crash_test.sh TANDEM
set -uo pipefail
tandem=${1:?usage: fuzz_crash_test.sh TANDEM}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
args=(fuzz --chains vmap --programs 60 --max-failures 1000 --inject crash_vmap_axis_size_one)
"$tandem" "${args[@]}" --out "$work/iso" > "$work/iso.log" 2>&1
rc=$?
[[ $rc == 1 ]] || { tail -20 "$work/iso.log"; fail "isolated run: exit $rc, want 1"; }
python3 - "$work/iso/fuzz_summary.json" <<'PY' || fail "isolated run's summary"
import json, sys
s = json.load(open(sys.argv[1]))
crashes = [f for f in s["failures"] if "SIGSEGV" in f["what"]]
assert s["cases"] == 60, f"{s['cases']} cases counted, want 60 (the run must go on after a crash)"
assert crashes and all("seed" in f for f in crashes), s["failures"][:3]
assert s["by_chain"]["vmap"].get("agree", 0) > 0, s["by_chain"]
print(f"60 cases: {len(crashes)} crashes recorded with their seeds, {s['by_chain']['vmap'].get('agree', 0)} agreed")
PY
# An engine error on a valid program (a planted sticky device error: the engine raises) fails
# the run too, exit 1, its cases counted engine_error: never a pass, never exit 5.
"$tandem" fuzz --chains vmap --programs 60 --max-failures 1000 --inject sticky_vmap_axis_size_one --out "$work/err" \
  > "$work/err.log" 2>&1
rc=$?
[[ $rc == 1 ]] || { tail -20 "$work/err.log"; fail "engine errors: exit $rc, want 1"; }
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["by_chain"]["vmap"].get("engine_error", 0) > 0, s["by_chain"]' \
  "$work/err/fuzz_summary.json" || fail "engine errors: no engine_error case counted"
"$tandem" "${args[@]}" --in-process > "$work/one.log" 2>&1
rc=$?
(( rc > 128 )) || fail "--in-process: exit $rc, want death by a signal (the planted segfault)"
echo "PASS: crashes isolated in tandem fuzz (exit 1, every case counted); --in-process dies as expected"
