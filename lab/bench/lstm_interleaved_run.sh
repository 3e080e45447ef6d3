#!/usr/bin/env bash
# The interleaved LSTM measurement behind lab/README.md "LSTM training on the reserve":
# REPS rounds, each running every tool once (after its own warm-up) — sgemm,
# tandem's kernel (with the old recompute-in-lstm_bwd mode beside it), tandem's primitive path
# through the Executor, PyTorch's nn.LSTM — first at 1 thread, then at each tool's default
# threads. Interleaving makes load drifts on a shared machine hit every tool alike;
# lab/tables/lstm_interleaved_table.py takes the minimum per row over the rounds.
#   lab/bench/lstm_interleaved_run.sh OUT [REPS] [FILTER]      (REPS default 5)
# BUILD (default: build) is the build folder; the PyTorch rows need python3-torch.
# THREADS="1 default" (the default) picks the thread settings; FIRST (default 1) numbers the
# first round, so that more rounds can be added to an earlier run's folder.
# TORCH_GRID="1x1 1x2 2x1 2x2" also runs PyTorch, in every round, at each INTRAxBLAS setting
# (torch.set_num_threads × OPENBLAS_NUM_THREADS, which torch does not govern) into
# r<round>_torch_<INTRA>x<BLAS>.json, so its best configuration is found, not assumed
# (lab/tables/lstm_peer_grid_table.py). Every round also times the kernel's GEMMs alone
# (lstm_cpu_bench --path gemms: the limit) into r<round>_gemms_<threads>.json, for
# lab/tables/lstm_limit_table.py, and its gate loops alone (--path gates) into
# r<round>_gates_<threads>.json. SGEMM_AB=1 adds the kernel with its all-steps products on
# the BLAS's cblas_sgemm (TANDEM_SGEMM=blas, engine/cpu/sgemm.h) into r<round>_kernel-blas_<threads>.json.
set -euo pipefail
out=${1:?usage: lab/bench/lstm_interleaved_run.sh OUT [REPS] [FILTER]}
reps=${2:-5}
filter=${3:-}
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "error: REPS '$reps' is not a count of 1 or more" >&2; echo "  hint: lab/bench/lstm_interleaved_run.sh OUT 5 [FILTER]" >&2; exit 4; }
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../../build}
bench=$build/lab/lstm_cpu_bench
for t in "$bench" "$build/lab/blas_sgemm_compare"; do
  [[ -x $t ]] || { echo "error: $t not built" >&2; echo "  hint: cmake --build build --target lstm_cpu_bench blas_sgemm_compare" >&2; exit 4; }
done
for g in ${TORCH_GRID:-}; do  # checked before any round runs
  [[ $g =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || { echo "error: TORCH_GRID entry '$g' is not INTRAxBLAS" >&2; echo "  hint: TORCH_GRID=\"1x1 1x2 2x1 2x2\"" >&2; exit 4; }
done
/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "error: PyTorch not importable by /usr/bin/python3" >&2; echo "  hint: apt-get install python3-torch" >&2; exit 4; }
mkdir -p "$out"
log() { echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg): $*" | tee -a "$out/run.log" >&2; }
# A tool's stderr (its progress lines) kept back in OUT/stderr.log, shown when the tool fails.
quiet() { "$@" 2> "$out/stderr.log" || { local rc=$?; cat "$out/stderr.log" >&2; exit "$rc"; }; }
log "start; $(lscpu | grep -m1 'Model name' | tr -s ' '); $(nproc) cpus; reps $reps; filter '${filter}'"
"$bench" --list-shapes > "$out/shapes.json"
f=()
[[ -n $filter ]] && f=(--filter "$filter")
first=${FIRST:-1}
for ((r = first; r < first + reps; ++r)); do
  for t in ${THREADS:-1 default}; do
    env=()
    [[ $t == 1 ]] && env=(OPENBLAS_NUM_THREADS=1)
    tt=$([[ $t == 1 ]] && echo 1 || nproc)
    log "round $r threads $t"
    env "${env[@]}" "$build/lab/blas_sgemm_compare" libopenblas.so.0 > "$out/r${r}_sgemm_${t}.txt"
    quiet env "${env[@]}" "$bench" --threads "$tt" --reps 1 --old-recompute "${f[@]}" > "$out/r${r}_kernel_${t}.json"
    quiet env "${env[@]}" "$bench" --threads "$tt" --reps 1 --path primitive "${f[@]}" > "$out/r${r}_primitive_${t}.json"
    quiet env "${env[@]}" "$bench" --threads "$tt" --reps 1 --path gemms "${f[@]}" > "$out/r${r}_gemms_${t}.json"
    quiet env "${env[@]}" "$bench" --threads "$tt" --reps 1 --path gates "${f[@]}" > "$out/r${r}_gates_${t}.json"
    [[ -z ${SGEMM_AB:-} ]] ||
      quiet env "${env[@]}" TANDEM_SGEMM=blas "$bench" --threads "$tt" --reps 1 "${f[@]}" > "$out/r${r}_kernel-blas_${t}.json"
    quiet env "${env[@]}" /usr/bin/python3 "$here/../../tools/oracles/torch_lstm_bench.py" --shapes "$out/shapes.json" \
      --threads "$([[ $t == 1 ]] && echo 1 || echo 0)" --reps 1 "${f[@]}" > "$out/r${r}_torch_${t}.json"
  done
  for g in ${TORCH_GRID:-}; do
    [[ $g =~ ^([0-9]+)x([0-9]+)$ ]]
    log "round $r PyTorch intra-op ${BASH_REMATCH[1]} BLAS ${BASH_REMATCH[2]}"
    quiet env OPENBLAS_NUM_THREADS=${BASH_REMATCH[2]} /usr/bin/python3 "$here/../../tools/oracles/torch_lstm_bench.py" --shapes "$out/shapes.json" \
      --threads "${BASH_REMATCH[1]}" --reps 1 "${f[@]}" > "$out/r${r}_torch_$g.json"
  done
done
log "end"
