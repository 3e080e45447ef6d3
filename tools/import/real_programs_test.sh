#!/usr/bin/env bash
# Real JAX programs (tools/import/real_programs/) through `tandem import` and `tandem check
# --program`, each the shape of a defect JAX users hit: nested jax.checkpoint (JAX's outer
# policy rules inside), an embedding as one_hot(tokens) @ E (no cotangent for the one-hot side), a fori_loop (an i32
# counter carry), a loss closing over constant arrays (JAX's vjp is w.r.t. the arguments only) and
# jax.experimental.rnn.lstm_ref with its final carries unused (their gather is dead code). Every case must pass;
# tandem's saved residuals must equal jax.ad_checkpoint.saved_residuals' under every policy (the
# vjp/policy:everything_saveable case against JAX's residuals of f as written), or differ only by a named rule row; the
# vmap case must vary the integer tokens across the batch. Exit 77 without JAX.
#   real_programs_test.sh TANDEM PYTHON SOURCE_DIR OUT
set -u
tandem=$1 python=$2 src=$3 out=$4
rm -rf "$out" && mkdir -p "$out"
"$python" -c "import jax" 2>/dev/null || { echo "skip: JAX is not installed for $python"; exit 77; }
export TANDEM_PYTHON=$python
fail=0
for f in "$src"/tools/import/real_programs/*.py; do
  name=$(basename "$f" .py)
  if ! "$tandem" import "$f" --out "$out/$name" >"$out/$name.import.log" 2>&1; then
    echo "FAIL: importing $name: $(tail -3 "$out/$name.import.log")"; fail=1; continue
  fi
  grep -q "not a tandem primitive" "$out/$name.import.log" && { echo "FAIL: $name: $(grep 'not a tandem' "$out/$name.import.log")"; fail=1; }
  "$tandem" check --program "$out/$name" -o "$out/$name.run" -q --backend cpu >"$out/$name.check.log" 2>&1
  rc=$?
  [ $rc = 0 ] && echo "ok: $name: every case passes"
  [ $rc = 0 ] || [ $rc = 1 ] || { echo "FAIL: $name: check exit $rc: $(head -3 "$out/$name.check.log")"; fail=1; }
  [ -f "$out/$name.run/records.json" ] || { fail=1; continue; }
  "$python" - "$out/$name.run/records.json" "$name" <<'PY' || fail=1
import json, sys
recs, name = json.load(open(sys.argv[1]))["records"], sys.argv[2]
# A case failing for a defect another branch fixes: reported, not failed; once it passes, the
# entry must go (the test fails then, so the list cannot outlive the defect).
PENDING = {}
bad = 0
for r in recs:
    why = PENDING.get(r["case"])
    if r["verdict"] != "pass" and why:
        print(f"PENDING: {r['case']}: {why}")
    elif r["verdict"] != "pass":
        print(f"FAIL: {r['case']}: {r['verdict']}: {r.get('message', '')[:400]}"); bad = 1
    elif why:
        print(f"FAIL: {r['case']} passes now: remove it from PENDING"); bad = 1
vjp = [r for r in recs if "/vjp/policy:" in r["case"]]
if not vjp:
    print(f"FAIL: {name}: no vjp case"); sys.exit(1)
for r in vjp:
    c = r.get("correctness", {}).get("saved_residuals_vs_jax")
    if not isinstance(c, dict):
        print(f"FAIL: {r['case']}: residuals not compared with JAX's: {c}"); bad = 1; continue
    if r["case"].split("policy:")[1].startswith("everything_saveable") and c.get("jax_list") != "as_written":
        print(f"FAIL: {r['case']}: compared with {c.get('jax_list')}, not JAX's residuals of f as written"); bad = 1
    if not c["same"] and "known_difference" not in c and r["case"] not in PENDING:
        print(f"FAIL: {r['case']}: tandem {c['tandem']} vs JAX {c['jax']}"); bad = 1
    elif "known_difference" in c:
        print(f"ok: {r['case']}: differs by a named rule: {c['known_difference'][:80]}")
for r in recs:
    if "/vmap/" in r["case"]:
        differ = r.get("info", {}).get("examples_differ", {})
        if not differ or not all(differ.values()):
            print(f"FAIL: {r['case']}: the examples of a mapped input do not differ: {differ}"); bad = 1
sys.exit(bad)
PY
done
exit $fail
