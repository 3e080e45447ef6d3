#!/usr/bin/env bash
# The examples end to end, as a user runs them: each exported from JAX by
# tools/import/export_jax_program.py, then `tandem run --program` (every case: forward and the import
# checked against JAX's own outputs, the vjp under every policy with JAX's saved residuals,
# vmap, hoisting, every dot precision) must pass, and `tandem report` must draw its
# memory–time front; the program using a primitive tandem lacks must be refused (exit 4)
# naming the equation's line and tandem's primitives. Exit 77 (a skip naming what is
# missing) without JAX.
#   examples_test.sh TANDEM PYTHON SOURCE_DIR OUT
set -u
tandem=$1 python=$2 src=$3 out=$4
rm -rf "$out" && mkdir -p "$out"
"$python" -c "import jax" 2>/dev/null || { echo "skip: JAX is not installed for $python"; exit 77; }
fail=0
export_example() {  # NAME: exports examples/NAME.py into $out/NAME
  "$python" "$src/tools/import/export_jax_program.py" "$src/examples/$1.py" --out "$out/$1" >"$out/$1.export.log" 2>&1 \
    || { echo "FAIL: exporting $1: $(tail -3 "$out/$1.export.log")"; fail=1; return 1; }
}
# The committed exports (examples/exported/, what a machine without JAX — the GPU session —
# checks) must be what the exporter writes today: the program (source lines aside, which
# name the folder the exporter ran from), the inputs, JAX's outputs and saved residuals.
same_export() {  # FRESH COMMITTED
  "$python" - "$1" "$2" <<'PY'
import json, os, sys
import numpy as np
fresh, kept = sys.argv[1:3]
def program(d):
    def strip(x):
        if isinstance(x, dict): return {k: strip(v) for k, v in x.items() if k != "source"}
        if isinstance(x, list): return [strip(v) for v in x]
        return x
    return strip(json.load(open(os.path.join(d, "program.json"))))
def npys(d, sub):
    p = os.path.join(d, sub)
    return {f: np.load(os.path.join(p, f)) for f in sorted(os.listdir(p)) if f.endswith(".npy")}
bad = []
if program(fresh) != program(kept): bad.append("program.json")
for sub in ("inputs", "jax"):
    a, b = npys(fresh, sub), npys(kept, sub)
    if a.keys() != b.keys() or any(not np.array_equal(a[k], b[k]) for k in a): bad.append(sub + "/*.npy")
if json.load(open(os.path.join(fresh, "jax/saved_residuals.json"))) != json.load(open(os.path.join(kept, "jax/saved_residuals.json"))):
    bad.append("jax/saved_residuals.json")
print(", ".join(bad))
sys.exit(1 if bad else 0)
PY
}
for ex in mlp_checkpoint lstm_scan attention_vmap; do
  export_example "$ex" || continue
  if stale=$(same_export "$out/$ex" "$src/examples/exported/$ex"); then echo "ok: examples/exported/$ex is current"
  else echo "FAIL: examples/exported/$ex is stale ($stale): \`build/tandem import examples/$ex.py --out examples/exported/$ex\`"; fail=1; fi
  if "$tandem" run --program "$out/$ex" -n 3 -q -o "$out/$ex.results" --backend cpu >"$out/$ex.log" 2>&1; then
    echo "ok: $ex: $(grep '^total' "$out/$ex.log")"
  else
    echo "FAIL: $ex: $(grep -E '^total|fail|error' "$out/$ex.log" | head -8)"; fail=1
  fi
  grep -q '"jax_vs_reference": {' "$out/$ex.results/records.json" \
    || { echo "FAIL: $ex: the forward case did not compare JAX's outputs"; fail=1; }
  grep -q '"saved_residuals_vs_jax": {' "$out/$ex.results/records.json" \
    || { echo "FAIL: $ex: no vjp case compared JAX's saved residuals"; fail=1; }
  "$tandem" report "$out/$ex.results/records.json" -o "$out/$ex.report" >/dev/null 2>&1
  ls "$out/$ex.report"/program_pareto_*.png >/dev/null 2>&1 && echo "ok: $ex: the memory-time front drawn" \
    || { echo "FAIL: $ex: no program_pareto_*.png"; fail=1; }
done
grep -q '"case": "program/attention_vmap/vmap/size:4/cpu"' "$out/attention_vmap.results/records.json" 2>/dev/null \
  || { echo "FAIL: attention_vmap: no vmap case from the exported VMAP"; fail=1; }
grep -q 'hoisted scan#0' "$out/lstm_scan.results/records.json" 2>/dev/null \
  || { echo "FAIL: lstm_scan: the hoisting log moved nothing"; fail=1; }
if export_example unsupported_primitive; then
  "$tandem" check --program "$out/unsupported_primitive" -q -o "$out/unsupported.results" --backend cpu >"$out/u.log" 2>&1
  code=$?
  if [ "$code" = 4 ] && grep -q "unsupported_primitive.py:13" "$out/u.log" && grep -q "unknown primitive 'cumprod'; tandem has: abs, add," "$out/u.log" && grep -q "hint: write instead: jax.lax.associative_scan" "$out/u.log"; then
    echo "ok: unsupported_primitive refused (exit 4, naming the line, tandem's primitives and the rewrite)"
  else
    echo "FAIL: unsupported_primitive: exit $code: $(head -3 "$out/u.log")"; fail=1
  fi
fi
exit $fail
