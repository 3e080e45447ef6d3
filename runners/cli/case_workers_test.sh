#!/usr/bin/env bash
# Crash isolation (runners/cli/case_workers.h): with a planted segfault in every vmap over an axis of size 1 (fault
# crash_vmap_axis_size_one), `tandem check` must record each crashing case as an infrastructure error naming SIGSEGV,
# run every other case to its pass, write a complete records.json with one record per selected case, and exit 5. The
# same run with --in-process (every case in one process, as before) dies at the first such case and loses the later
# cases' records: the check can fail. Then the same for a sticky device error (a context every later call fails in),
# contained by replacing the worker. usage: case_workers_test.sh TANDEM
set -uo pipefail
tandem=${1:?usage: case_workers_test.sh TANDEM}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
sel=(--suite vmap --profile quick --filter '^vmap/attention/' --backend cpu)
want=$("$tandem" list "${sel[@]}" | grep -c '^vmap/')
crashing=$("$tandem" list "${sel[@]}" | grep -c '/n:1$')
(( want > crashing && crashing > 0 )) || fail "the selection has $want cases, $crashing with n:1: want both kinds"

"$tandem" check "${sel[@]}" -q --inject crash_vmap_axis_size_one --out "$work/iso" > "$work/iso.log" 2>&1
rc=$?
[[ $rc == 5 ]] || { cat "$work/iso.log"; fail "isolated run: exit $rc, want 5 (infrastructure errors)"; }
python3 - "$work/iso/records.json" "$want" <<'PY' || fail "isolated run's records"
import json, sys
doc = json.load(open(sys.argv[1]))
recs, want = doc["records"], int(sys.argv[2])
assert doc.get("complete") is True, "records.json not marked complete"
assert len(recs) == want, f"{len(recs)} records, want {want}"
for r in recs:
    crashed = r["case"].endswith("/n:1/cpu")
    if crashed:
        assert r["verdict"] == "error" and "SIGSEGV" in r["message"] and "new process" in r["message"], r
    else:
        assert r["verdict"] == "pass", (r["case"], r["verdict"], r["message"][:200])
print(f"{len(recs)} records: {sum(r['verdict'] == 'error' for r in recs)} crashed cases recorded, the rest passed")
PY

"$tandem" check "${sel[@]}" -q --in-process --inject crash_vmap_axis_size_one --out "$work/one" > "$work/one.log" 2>&1
rc=$?
(( rc > 128 )) || fail "--in-process: exit $rc, want death by a signal (the planted segfault)"
got=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["records"]))' "$work/one/records.json" 2>/dev/null || echo 0)
(( got < want )) || fail "--in-process kept all $want records after a segfault: the plant did not crash"
# A sticky device error (fault sticky_vmap_axis_size_one: the case fails and, as after a CUDA illegal address, every
# later call of the process fails too): the worker is replaced after that case, so only the n:1 cases error and the
# others pass; in one process every case after the first n:1 one errors as well.
sticky() {  # OUT [--in-process]: "errors passes" of the run's records
  "$tandem" check "${sel[@]}" -q ${2:-} --inject sticky_vmap_axis_size_one --out "$work/$1" > "$work/$1.log" 2>&1
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["records"]; print(sum(x["verdict"]=="error" for x in r), sum(x["verdict"]=="pass" for x in r))' \
    "$work/$1/records.json" 2>/dev/null || echo "0 0"
}
read -r errors passes < <(sticky sticky)
[[ $errors == "$crashing" && $passes == $((want - crashing)) ]] ||
  { cat "$work/sticky.log"; fail "sticky error: $errors errors, $passes passes, want $crashing and $((want - crashing))"; }
grep -q "left the device context broken" "$work/sticky/records.json" || fail "sticky error: the record does not say the worker was replaced"
read -r errors_one passes_one < <(sticky sticky_one --in-process)
(( errors_one > crashing )) || fail "--in-process with a sticky error: $errors_one errors, want more than $crashing (the plant did not stick)"
echo "PASS: a sticky device error spoils its own case only ($crashing errors, $passes passes; in one process: $errors_one errors)"
echo "PASS: a segfaulting case is its own error record, the $((want - crashing)) others pass, $want records written (in one process: exit $rc, $got records)"
