#!/usr/bin/env bash
# The examples end to end, as a user runs them: each exported from JAX by tools/import/export_jax_program.py, then
# `tandem run --program` (every case: forward and the import checked against JAX's own outputs, the vjp under every
# policy with JAX's saved residuals, vmap, hoisting, every dot precision) must pass, and `tandem report` must draw its
# memory–time front; a CNN (conv_general_dilated) must pass every case and a while loop its forward and vmap, its vjp
# cases skipped with JAX's reason; the program using a primitive tandem lacks must be refused (exit 4) naming the
# equation's line and tandem's primitives. Exit 77 (a skip naming what is missing) without JAX.
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
# The committed exports (examples/exported/, what a machine without JAX — the GPU session — checks) must be what the
# exporter writes today. What tandem's code and the example decide must match exactly: the program (source lines aside,
# which name the folder the exporter ran from), the inputs, the saved residuals, and the names, dtypes and shapes of
# JAX's outputs. JAX's output values are another program's f32 arithmetic, which XLA:CPU vectorises per CPU (on this
# machine, with XLA_FLAGS=--xla_cpu_max_isa=SSE4_2 attention_vmap's out_0 moves by 1 ulp), so they are held within that
# program's own error instead: the forward case of each export (fresh and committed) must find JAX's outputs within the
# tolerance E it holds the engine to around the f64 reference (jax_vs_reference), so the two differ by at most 2E.
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
a, b = npys(fresh, "inputs"), npys(kept, "inputs")
if a.keys() != b.keys() or any(not np.array_equal(a[k], b[k]) for k in a): bad.append("inputs/*.npy")
a, b = npys(fresh, "jax"), npys(kept, "jax")
if a.keys() != b.keys() or any((a[k].dtype, a[k].shape) != (b[k].dtype, b[k].shape) for k in a):
    bad.append("jax/*.npy (names, dtypes or shapes)")
if json.load(open(os.path.join(fresh, "jax/saved_residuals.json"))) != json.load(open(os.path.join(kept, "jax/saved_residuals.json"))):
    bad.append("jax/saved_residuals.json")
print(", ".join(bad))
if not bad:  # informational: how far this CPU's JAX is from the committed outputs, in ulps
    ulps = max((float(np.max(np.abs(a[k].astype(np.float64) - b[k]) / np.spacing(np.abs(b[k]).astype(a[k].dtype))))
                for k in a if a[k].size and a[k].dtype.kind == "f"), default=0.0)
    print(f"JAX's outputs here differ from the committed ones by at most {ulps:g} ulp", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}
# JAX_IN_TOLERANCE RECORDS: the forward case found JAX's outputs within E (error_over_tolerance ≤ 1).
jax_in_tolerance() {
  "$python" - "$1" <<'PY'
import json, sys
recs = [r for r in json.load(open(sys.argv[1]))["records"] if "/forward/" in r["case"]]
v = [(r.get("correctness") or {}).get("jax_vs_reference") for r in recs]
ratios = [x["error_over_tolerance"] for x in v if isinstance(x, dict) and "error_over_tolerance" in x]
print(f"JAX's outputs at {max(ratios):.3g} of the tolerance" if ratios else "no jax_vs_reference verdict")
sys.exit(0 if ratios and max(ratios) <= 1 else 1)
PY
}
for ex in mlp_checkpoint lstm_scan attention_vmap; do
  export_example "$ex" || continue
  if stale=$(same_export "$out/$ex" "$src/examples/exported/$ex" 2>"$out/$ex.ulps"); then
    "$tandem" check --program "$src/examples/exported/$ex" --filter '/forward$' -q -o "$out/$ex.kept" --backend cpu \
      >"$out/$ex.kept.log" 2>&1
    if within=$(jax_in_tolerance "$out/$ex.kept/records.json"); then
      echo "ok: examples/exported/$ex is current ($(cat "$out/$ex.ulps"); the committed ones: $within)"
    else echo "FAIL: examples/exported/$ex: its JAX outputs are off the f64 reference ($within)"; fail=1; fi
  else echo "FAIL: examples/exported/$ex is stale ($stale): \`build/tandem import examples/$ex.py --out examples/exported/$ex\`"; fail=1; fi
  if "$tandem" run --program "$out/$ex" -n 3 -q -o "$out/$ex.results" --backend cpu >"$out/$ex.log" 2>&1; then
    echo "ok: $ex: $(grep '^total' "$out/$ex.log")"
  else
    echo "FAIL: $ex: $(grep -E '^total|fail|error' "$out/$ex.log" | head -8)"; fail=1
  fi
  within=$(jax_in_tolerance "$out/$ex.results/records.json") && echo "ok: $ex: fresh $within" \
    || { echo "FAIL: $ex: the forward case did not find JAX's outputs within tolerance ($within)"; fail=1; }
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
# A CNN (conv_general_dilated in two layouts): every case passes. A data-dependent loop
# (while): forward and vmap pass, each vjp case is skipped with JAX's reason, none fails.
if export_example cnn_conv; then
  "$tandem" run --program "$out/cnn_conv" -n 1 -q -o "$out/cnn_conv.results" --backend cpu >"$out/cnn_conv.log" 2>&1 \
    && grep -q '^total: 6 passed, 0 failed, 0 skipped' "$out/cnn_conv.log" && echo "ok: cnn_conv: $(grep '^total' "$out/cnn_conv.log")" \
    || { echo "FAIL: cnn_conv: $(grep -E '^total|fail|error' "$out/cnn_conv.log" | head -8)"; fail=1; }
fi
if export_example while_newton; then
  "$tandem" run --program "$out/while_newton" -n 1 -q -o "$out/while_newton.results" --backend cpu >"$out/while_newton.log" 2>&1
  code=$?
  if [ "$code" = 0 ] && grep -q '^total: 2 passed, 0 failed, 4 skipped, 0 errors' "$out/while_newton.log" \
     && [ "$(grep -c 'reverse-mode differentiation does not work for lax.while_loop' "$out/while_newton.results/records.json")" -ge 4 ]; then
    echo "ok: while_newton: forward and vmap pass, the vjp cases skipped with JAX's reason"
  else
    echo "FAIL: while_newton: exit $code: $(grep -E '^total|fail|error' "$out/while_newton.log" | head -8)"; fail=1
  fi
fi
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
