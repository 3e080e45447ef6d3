#!/usr/bin/env bash
# Runs the tools' documented commands (tools/perf/README.md, tools/tables/README.md) on their
# smallest rows, so a moved path, a renamed flag or a broken JSON field fails ctest:
# tools_smoke_test.sh BUILD_TOOLS_DIR
set -euo pipefail
bin=${1:?usage: tools_smoke_test.sh BUILD_TOOLS_DIR}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# lstm_cpu_bench: the shape list torch_lstm_bench.py reads, then one timed inference row.
"$bin/lstm_cpu_bench" --list-shapes > "$work/shapes.json"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert len(s) >= 5 and "label" in s[0]' \
  "$work/shapes.json" || fail "lstm_cpu_bench --list-shapes: not a list of shapes"
OPENBLAS_NUM_THREADS=1 "$bin/lstm_cpu_bench" --threads 1 --reps 1 --filter infer_b1 > "$work/t.json" 2> /dev/null
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; assert len(r) == 2 and all(x["gflops"] > 0 for x in r)' \
  "$work/t.json" || fail "lstm_cpu_bench --filter infer_b1: expected 2 rows with GFLOP/s > 0"
# --path gemms: the kernel's GEMMs alone, both ways, credited the kernel's FLOPs row for row.
small='"batch":16,"bidirectional":false,"hidden":512'
OPENBLAS_NUM_THREADS=1 "$bin/lstm_cpu_bench" --threads 1 --reps 1 --path gemms --filter "$small" > "$work/g.json" 2> /dev/null
OPENBLAS_NUM_THREADS=1 "$bin/lstm_cpu_bench" --threads 1 --reps 1 --filter "$small" > "$work/k.json" 2> /dev/null
python3 - "$work/g.json" "$work/k.json" <<'PY' || fail "lstm_cpu_bench --path gemms: want fwd and fwd+bwd rows, packed and sgemm, with the kernel's FLOPs"
import json, sys
g, k = (json.load(open(f))["results"] for f in sys.argv[1:])
flops = {r["mode"]: r["flops"] for r in k}
assert sorted((r["mode"], r["step_gemm"]) for r in g) == sorted((m, w) for m in flops for w in ("packed", "sgemm")), g
assert all(r["flops"] == flops[r["mode"]] and r["min_s"] > 0 for r in g)
PY
# cpu_peak: one row per width the CPU has, a positive rate; a bad option exits 4 with a hint.
"$bin/cpu_peak" --threads 1 > "$work/peak.md"
grep -Eq '^\| AVX(2|-512) \| 1 \| [1-9][0-9.]* \|$' "$work/peak.md" || { cat "$work/peak.md"; fail "cpu_peak: no AVX row with a rate"; }
set +e
"$bin/cpu_peak" --no-such-flag > /dev/null 2> "$work/err"; rc=$?
set -e
[[ $rc == 4 ]] && grep -q 'hint:' "$work/err" || fail "cpu_peak --no-such-flag: rc=$rc, want 4 and a hint"
# Bad input: exit 4 with a hint.
set +e
"$bin/lstm_cpu_bench" --no-such-flag > /dev/null 2> "$work/err"; rc=$?
set -e
[[ $rc == 4 ]] && grep -q 'hint:' "$work/err" || fail "lstm_cpu_bench --no-such-flag: rc=$rc, want 4 and a hint"

# lstm_perf_table.py: the Markdown table of a (tandem, torch) pair; the same file twice gives 1.00x.
python3 "$here/../tables/lstm_perf_table.py" "$work/t.json" "$work/t.json" > "$work/table.md"
[[ $(grep -c '1.00x' "$work/table.md") == 2 ]] || { cat "$work/table.md"; fail "lstm_perf_table.py: want two 1.00x rows"; }
set +e
python3 "$here/../tables/lstm_perf_table.py" "$work/t.json" > /dev/null 2> "$work/err"; rc=$?
set -e
[[ $rc != 0 ]] && grep -q 'hint:' "$work/err" || fail "lstm_perf_table.py with an odd file count: rc=$rc, want non-zero and a hint"
# lstm_best_threads_table.py: the committed idle rounds give the six rows of PERFORMANCE.md;
# a round that is not there is an error with a hint.
python3 "$here/../tables/lstm_best_threads_table.py" "$here/../../docs/perf/lstm/onednn-run" 6 7 8 > "$work/best.md"
[[ $(grep -c '×' "$work/best.md") == 6 ]] || { cat "$work/best.md"; fail "lstm_best_threads_table.py: want 6 rows"; }
set +e
python3 "$here/../tables/lstm_best_threads_table.py" "$work" 6 > /dev/null 2> "$work/err"; rc=$?
set -e
[[ $rc != 0 ]] && grep -q 'hint:' "$work/err" || fail "lstm_best_threads_table.py with a missing round: rc=$rc, want non-zero and a hint"

# blas_sgemm_compare: no library named is bad input; an unloadable one too.
set +e
"$bin/blas_sgemm_compare" > /dev/null 2> "$work/err"; rc=$?
set -e
[[ $rc == 4 ]] && grep -q 'hint:' "$work/err" || fail "blas_sgemm_compare without a library: rc=$rc, want 4 and a hint"
set +e
"$bin/blas_sgemm_compare" libno_such_blas.so > /dev/null 2>&1; rc=$?
set -e
[[ $rc == 4 ]] || fail "blas_sgemm_compare libno_such_blas.so: rc=$rc, want 4"
# want4 CMD...: bad input, exit 4 with a hint.
want4() {
  set +e; "$@" > /dev/null 2> "$work/err"; local rc=$?; set -e
  [[ $rc == 4 ]] && grep -q 'hint:' "$work/err" || fail "$*: rc=$rc, want 4 and a hint"
}

# executor_overhead: a small run counts the eqns it reports (scan: L·body + 1, straight-line).
"$bin/executor_overhead" --length 100 --body 4 --reps 1 > "$work/eo.md"
grep -q '^| scan, L=100, body 4 | 401 |' "$work/eo.md" || { cat "$work/eo.md"; fail "executor_overhead: want 401 executed eqns in the scan row"; }
grep -q '^| straight-line | 400 |' "$work/eo.md" || fail "executor_overhead: want 400 executed eqns straight-line"
want4 "$bin/executor_overhead" --length 0
want4 "$bin/executor_overhead" --reps
want4 "$bin/executor_overhead" --bogus 3

# lstm_program_bench: the smallest shape, both paths; a filter matching nothing is bad input.
OPENBLAS_NUM_THREADS=1 "$bin/lstm_program_bench" --reps 1 --filter infer_b1 > "$work/lpb.md"
[[ $(grep -c '^| infer_b1 .*, fwd |' "$work/lpb.md") == 2 ]] || { cat "$work/lpb.md"; fail "lstm_program_bench: want 2 infer_b1 rows"; }
want4 "$bin/lstm_program_bench" --filter no_such_shape
want4 "$bin/lstm_program_bench" --reps 0

# vmap_bench: one batch and the per-primitive profile of the vmapped program.
OPENBLAS_NUM_THREADS=1 "$bin/vmap_bench" --max-batch 2 --reps 1 --profile-batch 4 > "$work/vb.md"
grep -q '^| tanh | ' "$work/vb.md" && grep -q '^| dot_general | ' "$work/vb.md" || { cat "$work/vb.md"; fail "vmap_bench --profile-batch: want tanh and dot_general rows"; }
# The vmapped and the hand-batched MLP run the same kernels on the same data: equal results.
[[ $(grep -cE '^\| [12] \|.*\| 0 \|$' "$work/vb.md") == 2 ]] || { cat "$work/vb.md"; fail "vmap_bench: want batch rows 1 and 2 with the vmapped result equal to the hand-batched one"; }
want4 "$bin/vmap_bench" --profile-batch -1
# lstm_step_onednn (built with oneDNN only): one round of one step per product, six table rows;
# it exits 1 itself when the two libraries' products differ. Bad counts: exit 4 with a hint.
if [[ -x $bin/lstm_step_onednn ]]; then
  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "$bin/lstm_step_onednn" 1 1 > "$work/so.md"
  [[ $(grep -c '^| .* | [0-9.]* |$' "$work/so.md") == 6 ]] || { cat "$work/so.md"; fail "lstm_step_onednn: want 6 rows"; }
  want4 "$bin/lstm_step_onednn" 0 1
fi
echo "tools smoke: ok"
