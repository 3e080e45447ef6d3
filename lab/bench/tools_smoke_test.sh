#!/usr/bin/env bash
# Runs the tools' documented commands (lab/bench/README.md, lab/tables/README.md) on their
# smallest rows, so a moved path, a renamed flag or a broken JSON field fails ctest; and their
# bad input (an unknown option, a count that is not one, a missing or garbled file), refused:
# tools_smoke_test.sh BUILD_TOOLS_DIR
set -euo pipefail
bin=${1:?usage: tools_smoke_test.sh BUILD_TOOLS_DIR}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# want4 PATTERN CMD...: bad input, refused: exit 4, stderr naming the problem (PATTERN, an ERE) and a hint.
want4() {
  local pat=$1 rc; shift
  set +e; "$@" > /dev/null 2> "$work/err"; rc=$?; set -e
  [[ $rc == 4 ]] && grep -Eq -- "$pat" "$work/err" && grep -q 'hint:' "$work/err" ||
    { cat "$work/err" >&2; fail "$*: rc=$rc, want 4, /$pat/ and a hint"; }
}

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
# --path gates: the gate loops alone, one row per mode, faster than the whole kernel.
OPENBLAS_NUM_THREADS=1 "$bin/lstm_cpu_bench" --threads 1 --reps 1 --path gates --filter "$small" > "$work/gl.json" 2> /dev/null
python3 - "$work/gl.json" "$work/k.json" <<'PY' || fail "lstm_cpu_bench --path gates: want one fwd and one fwd+bwd row, each under the kernel's time"
import json, sys
g, k = (json.load(open(f))["results"] for f in sys.argv[1:])
kernel = {r["mode"]: r["min_s"] for r in k}
assert sorted(r["mode"] for r in g) == sorted(kernel), g
assert all(0 < r["min_s"] < kernel[r["mode"]] for r in g), (g, kernel)
PY
# cpu_peak: one row per width the CPU has, a positive rate; a bad option exits 4 with a hint.
"$bin/cpu_peak" --threads 1 > "$work/peak.md"
grep -Eq '^\| AVX(2|-512) \| 1 \| [1-9][0-9.]* \|$' "$work/peak.md" || { cat "$work/peak.md"; fail "cpu_peak: no AVX row with a rate"; }
want4 'unknown option or missing value: --no-such-flag' "$bin/cpu_peak" --no-such-flag
want4 "--threads takes a count of 1 or more, not 'two'" "$bin/cpu_peak" --threads two
# lstm_cpu_bench's bad input, refused before anything is timed.
want4 'unknown option --no-such-flag' "$bin/lstm_cpu_bench" --no-such-flag
want4 '--path fast is not kernel, primitive, gemms or gates' "$bin/lstm_cpu_bench" --path fast
want4 "--threads takes a count of 1 or more, not 'two'" "$bin/lstm_cpu_bench" --threads two
want4 "--reps takes a count of 1 or more, not '0'" "$bin/lstm_cpu_bench" --reps 0
want4 '--reps needs a value' "$bin/lstm_cpu_bench" --reps
want4 '--filter no_such_shape matches no shape' "$bin/lstm_cpu_bench" --filter no_such_shape

# lstm_perf_table.py: the Markdown table of a (tandem, torch) pair; the same file twice gives 1.00x.
python3 "$here/../tables/lstm_perf_table.py" "$work/t.json" "$work/t.json" > "$work/table.md"
[[ $(grep -c '1.00x' "$work/table.md") == 2 ]] || { cat "$work/table.md"; fail "lstm_perf_table.py: want two 1.00x rows"; }
want4 'in pairs' python3 "$here/../tables/lstm_perf_table.py" "$work/t.json"
# lstm_best_threads_table.py: the committed idle rounds give the six rows of lab/pages/lstm.md;
# a round that is not there is an error with a hint.
python3 "$here/../tables/lstm_best_threads_table.py" "$here/../../lab/records/lstm/onednn-run" 6 7 8 > "$work/best.md"
[[ $(grep -c '×' "$work/best.md") == 6 ]] || { cat "$work/best.md"; fail "lstm_best_threads_table.py: want 6 rows"; }
want4 'r6_kernel_1.json is missing' python3 "$here/../tables/lstm_best_threads_table.py" "$work" 6

# blas_sgemm_compare: no library named is bad input; an unloadable one, or one without sgemm, too.
want4 'usage' "$bin/blas_sgemm_compare"
want4 'cannot load libno_such_blas.so' "$bin/blas_sgemm_compare" libno_such_blas.so
want4 'libm.so.6 has neither cblas_sgemm nor dnnl_sgemm' "$bin/blas_sgemm_compare" libm.so.6

# executor_overhead: a small run counts the eqns it reports (scan: L·body + 1, straight-line).
"$bin/executor_overhead" --length 100 --body 4 --reps 1 > "$work/eo.md"
grep -q '^| scan, L=100, body 4 | 401 |' "$work/eo.md" || { cat "$work/eo.md"; fail "executor_overhead: want 401 executed eqns in the scan row"; }
grep -q '^| straight-line | 400 |' "$work/eo.md" || fail "executor_overhead: want 400 executed eqns straight-line"
want4 "--length needs an integer in 1..10\^7, got '0'" "$bin/executor_overhead" --length 0
want4 "--reps needs an integer in 1..10\^7, got ''" "$bin/executor_overhead" --reps
want4 'unknown option --bogus' "$bin/executor_overhead" --bogus 3

# lstm_program_bench: the smallest shape, both paths; a filter matching nothing is bad input.
OPENBLAS_NUM_THREADS=1 "$bin/lstm_program_bench" --reps 1 --filter infer_b1 > "$work/lpb.md"
[[ $(grep -c '^| infer_b1 .*, fwd |' "$work/lpb.md") == 2 ]] || { cat "$work/lpb.md"; fail "lstm_program_bench: want 2 infer_b1 rows"; }
want4 "--filter 'no_such_shape' matches no perf shape" "$bin/lstm_program_bench" --filter no_such_shape
want4 '--reps takes 1..1000' "$bin/lstm_program_bench" --reps 0
want4 '--reps takes 1..1000' "$bin/lstm_program_bench" --reps two
want4 '--reps takes 1..1000' "$bin/lstm_program_bench" --reps 5x

# vmap_bench: one batch and the per-primitive profile of the vmapped program.
OPENBLAS_NUM_THREADS=1 "$bin/vmap_bench" --max-batch 2 --reps 1 --profile-batch 4 > "$work/vb.md"
grep -q '^| tanh | ' "$work/vb.md" && grep -q '^| dot_general | ' "$work/vb.md" || { cat "$work/vb.md"; fail "vmap_bench --profile-batch: want tanh and dot_general rows"; }
# The vmapped and the hand-batched MLP run the same kernels on the same data: equal results.
[[ $(grep -cE '^\| [12] \|.*\| 0 \|$' "$work/vb.md") == 2 ]] || { cat "$work/vb.md"; fail "vmap_bench: want batch rows 1 and 2 with the vmapped result equal to the hand-batched one"; }
want4 '--profile-batch in 0..65536' "$bin/vmap_bench" --profile-batch -1
want4 '--max-batch and --reps must be >= 1' "$bin/vmap_bench" --reps two
want4 '--max-batch and --reps must be >= 1' "$bin/vmap_bench" --max-batch 16k
want4 "--reps takes a count of 1 or more, not '5x'" "$bin/lstm_cpu_bench" --reps 5x
# lstm_step_onednn (built with oneDNN only): one round of one step per product, six table rows;
# it exits 1 itself when the two libraries' products differ. Bad counts: exit 4 with a hint.
if [[ -x $bin/lstm_step_onednn ]]; then
  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "$bin/lstm_step_onednn" 1 1 > "$work/so.md"
  [[ $(grep -c '^| .* | [0-9.]* |$' "$work/so.md") == 6 ]] || { cat "$work/so.md"; fail "lstm_step_onednn: want 6 rows"; }
  want4 'ROUNDS and STEPS must be positive' "$bin/lstm_step_onednn" 0 1
fi

# The run scripts refuse before measuring: a tool not built, no peer library, a bad REPS, a bad
# TORCH_GRID, an unknown row. fake/ holds stand-ins that do nothing, so a check that let the run
# go on would end otherwise than with 4.
fake=$work/fake && mkdir -p "$fake/lab"
for t in tandem lab/blas_sgemm_compare lab/cpu_peak lab/lstm_cpu_bench; do printf '#!/bin/sh\n' > "$fake/$t"; done
chmod +x "$fake/tandem" "$fake"/lab/*
want4 'none/tandem not built' env BUILD="$work/none" "$here/dot_peer_grid.sh" "$work/dpg"
want4 'none of the peer libraries is installed' env BUILD="$fake" PEERS="$work/libno_such_blas.so" "$here/dot_peer_grid.sh" "$work/dpg"
grep -q 'libno_such_blas.so: not installed' "$work/dpg/run.log" || fail "dot_peer_grid.sh: run.log does not name the missing peer"
want4 "REPS 'five' is not a count" env BUILD="$fake" "$here/dot_peer_grid.sh" "$work/dpg" five
want4 "REPS '0' is not a count" env BUILD="$fake" "$here/lstm_interleaved_run.sh" "$work/lir" 0
want4 "TORCH_GRID entry '2y2' is not INTRAxBLAS" env BUILD="$fake" TORCH_GRID="1x1 2y2" "$here/lstm_interleaved_run.sh" "$work/lir"
want4 "REPS 'x' is not a count" env BUILD="$fake" "$here/lstm_perf_run.sh" "$work/lpr" x
want4 'unknown row bogus' env BUILD="$fake" "$here/lstm_perf_run.sh" "$work/lpr" 1 bogus

# The table scripts: a folder or round that is not there, a raw file cut off mid-write (garbled),
# each refused naming the file.
tables=$here/../tables r=$work/rounds
mkdir "$r" && cp "$work/t.json" "$r/r3_torch_1x1.json"
for f in r1_gemms_1.json r1_torch_1x1.json r1_tandem_1.json; do echo '{"results": [' > "$r/$f"; done
echo '| garbled' > "$r/r1_peers_1.txt"
want4 'r1_gemms_1.json is garbled, not JSON' python3 "$tables/lstm_limit_table.py" "$r" 1
want4 'r2_gemms_1.json is missing' python3 "$tables/lstm_limit_table.py" "$r" 2
want4 'r1_torch_1x1.json is garbled' python3 "$tables/lstm_peer_grid_table.py" "$r" 1
want4 'no r2_torch_INTRAxBLAS.json' python3 "$tables/lstm_peer_grid_table.py" "$r" 2
want4 'r3_kernel_1.json is missing' python3 "$tables/lstm_peer_grid_table.py" "$r" 3
want4 'none is not a folder' python3 "$tables/lstm_peer_grid_table.py" "$work/none" 1
want4 'r1_tandem_1.json is garbled' python3 "$tables/dot_peer_grid_table.py" "$r" 1
want4 'no r3_peers_T.txt' python3 "$tables/dot_peer_grid_table.py" "$r" 3
want4 'none is not a folder' python3 "$tables/dot_peer_grid_table.py" "$work/none" 1
echo '{"results": []}' > "$r/r1_tandem_1.json"
want4 'r1_tandem_1.json has no "records"' python3 "$tables/dot_peer_grid_table.py" "$r" 1
rm "$r/r1_tandem_1.json"
want4 'r1_tandem_1.json is missing' python3 "$tables/dot_peer_grid_table.py" "$r" 1
# dot_preset_table.py: a round's r<R>.json missing, cut off, or without the F32 row it divides by.
echo '{"records": [' > "$r/r1.json" && echo '{"records": []}' > "$r/r2.json"
want4 'r1.json is garbled, not JSON' python3 "$tables/dot_preset_table.py" "$r" 1
want4 'r2.json has no passing F32_F32_F32 perf record' python3 "$tables/dot_preset_table.py" "$r" 2
want4 'cannot read .*r4.json' python3 "$tables/dot_preset_table.py" "$r" 4
want4 'none is not a folder' python3 "$tables/dot_preset_table.py" "$work/none" 1
want4 'no r\*_kernel_\*.json' python3 "$tables/lstm_interleaved_table.py" "$r"
want4 'cannot read .*none.json' python3 "$tables/lstm_perf_table.py" "$work/t.json" "$work/none.json"
want4 'r1_gemms_1.json is garbled' python3 "$tables/lstm_perf_table.py" "$work/t.json" "$r/r1_gemms_1.json"
want4 'cannot read .*none.json' python3 "$tables/program_table.py" "$work/none.json"
want4 'r1_gemms_1.json is garbled' python3 "$tables/program_table.py" "$r/r1_gemms_1.json"
# program_bench: the LSTM example's forward and gradient times as one JSON object; bad input refused.
examples="$here/../../examples/exported"
OPENBLAS_NUM_THREADS=1 "$bin/program_bench" --program "$examples/lstm_scan" --reps 1 --min-time 0 > "$work/pb.json"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); assert t["forward"] > 0 and t["gradient"] > 0' \
  "$work/pb.json" || fail "program_bench: expected forward and gradient seconds > 0"
want4 'bad arguments' "$bin/program_bench" --program "$work/none"
want4 'unknown row' python3 "$here/program_vs_xla.py" --bench "$bin/program_bench" --out "$work/x.jsonl" --rows nope
want4 'unknown thread setting' python3 "$here/program_vs_xla.py" --bench "$bin/program_bench" --out "$work/x.jsonl" --threads 3
# program_vs_xla_table.py: its records missing, garbled, or a row without both sides.
want4 'cannot be read' python3 "$tables/program_vs_xla_table.py" "$work/none.jsonl"
echo '{"row": "x"' > "$work/px.jsonl"
want4 'not JSON' python3 "$tables/program_vs_xla_table.py" "$work/px.jsonl"
echo '{"cpu": "c", "isa": "i", "row": "r", "threads": "1", "round": 0, "side": "xla", "case": "forward", "seconds": 1, "load": 0}' > "$work/px.jsonl"
want4 'lacks a side or a case' python3 "$tables/program_vs_xla_table.py" "$work/px.jsonl"
echo "tools smoke: ok"
