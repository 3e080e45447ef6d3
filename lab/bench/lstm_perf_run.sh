#!/usr/bin/env bash
# The LSTM measurement run behind lab/README.md "LSTM": tandem's CPU LSTM, PyTorch's
# nn.LSTM and sgemm on the same shapes, every output kept in OUT with the load beside it.
#   lab/bench/lstm_perf_run.sh OUT [REPS] [ROW ...]         (REPS default 3; ROWs default: all)
# ROWs (file OUT/ROW.json or .txt; 1t/2t = OPENBLAS_NUM_THREADS):
#   sgemm               sgemm_{1,2}t.txt (blas_sgemm_compare), sgemm_cpu_{1,2}t.txt (NumPy)
#   tandem_1t           --threads 1, BLAS 1            torch_1t    PyTorch, 1 thread
#   tandem_blas2_rows1  --threads 1, BLAS 2 (default)  torch_2t    PyTorch, 2 threads
#   tandem_2t           --threads 2 --split-rows, BLAS 2
#   tandem_blas1_rows2  --threads 2, BLAS 1 (the row split with single-threaded BLAS)
#   before_1t before_2t the same tool built from an older tree: BEFORE=path/to/lstm_cpu_bench
# BUILD (default: build) is the build folder; PyTorch rows need python3-torch.
set -euo pipefail
out=${1:?usage: lab/bench/lstm_perf_run.sh OUT [REPS] [ROW ...]}
reps=${2:-3}
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "error: REPS '$reps' is not a count of 1 or more" >&2; echo "  hint: lab/bench/lstm_perf_run.sh OUT 3 [ROW ...]" >&2; exit 4; }
shift $(( $# >= 2 ? 2 : 1 ))
rows=("$@")
[[ ${#rows[@]} == 0 ]] && rows=(sgemm tandem_1t torch_1t tandem_blas2_rows1 tandem_2t torch_2t)
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../../build}
bench=$build/lab/lstm_cpu_bench
[[ -x $bench ]] || { echo "error: $bench not built" >&2; echo "  hint: cmake --build build --target lstm_cpu_bench" >&2; exit 4; }
mkdir -p "$out"
log() { echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg): $*" | tee -a "$out/run.log" >&2; }
log "start; $(lscpu | grep -m1 'Model name' | tr -s ' '); $(nproc) cpus"
"$bench" --list-shapes > "$out/shapes.json"
torch() { OPENBLAS_NUM_THREADS=$1 /usr/bin/python3 "$here/../../tools/oracles/torch_lstm_bench.py" --shapes "$out/shapes.json" --threads "$1" --reps "$reps"; }
for row in "${rows[@]}"; do
  log "$row"
  case $row in
    sgemm)
      for t in 1 2; do
        OPENBLAS_NUM_THREADS=$t "$build/lab/blas_sgemm_compare" libopenblas.so.0 > "$out/sgemm_${t}t.txt"
        OPENBLAS_NUM_THREADS=$t /usr/bin/python3 "$here/sgemm_numpy.py" > "$out/sgemm_cpu_${t}t.txt"
      done ;;
    tandem_1t)          OPENBLAS_NUM_THREADS=1 "$bench" --threads 1 --reps "$reps" > "$out/$row.json" ;;
    tandem_blas2_rows1) OPENBLAS_NUM_THREADS=2 "$bench" --threads 1 --reps "$reps" > "$out/$row.json" ;;
    tandem_2t)          OPENBLAS_NUM_THREADS=2 "$bench" --threads 2 --split-rows --reps "$reps" > "$out/$row.json" ;;
    tandem_blas1_rows2) OPENBLAS_NUM_THREADS=1 "$bench" --threads 2 --reps "$reps" > "$out/$row.json" ;;
    torch_1t) torch 1 > "$out/$row.json" ;;
    torch_2t) torch 2 > "$out/$row.json" ;;
    before_1t|before_2t)
      [[ -x ${BEFORE:-} ]] || { echo "error: $row needs BEFORE=path/to/an/older/lstm_cpu_bench" >&2; exit 4; }
      t=${row#before_}; t=${t%t}
      OPENBLAS_NUM_THREADS=$t "$BEFORE" --threads "$t" --reps "$reps" > "$out/$row.json" ;;
    *) echo "error: unknown row $row" >&2; echo "  hint: rows are listed at the top of $0" >&2; exit 4 ;;
  esac
done
log "done"
if [[ -s $out/tandem_1t.json && -s $out/torch_1t.json ]]; then
  /usr/bin/python3 "$here/../tables/lstm_perf_table.py" --cpu "$out/tandem_1t.json" "$out/torch_1t.json"
fi
