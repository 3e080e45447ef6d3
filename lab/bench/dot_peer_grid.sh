#!/usr/bin/env bash
# dot_general's f32 product against every CPU BLAS on this machine at each one's best thread
# count, and against the machine's FMA limit (a peer at its own best configuration).
# REPS interleaved rounds; in each, at 1 thread and then at every core, back to back:
#   cpu_peak                      the measured f32 FMA limit          -> r<R>_peak_<T>.txt
#   blas_sgemm_compare PEERS      cblas_sgemm / dnnl_sgemm, N = 512…2048 -> r<R>_peers_<T>.txt
#   tandem run --suite dot ...    dot_general F32_F32_F32 and its blas_sgemm row -> r<R>_tandem_<T>.json
# lab/tables/dot_peer_grid_table.py OUT 1 … REPS sets them side by side.
#   lab/bench/dot_peer_grid.sh OUT [REPS]          (REPS default 5; BUILD default build)
# PEERS default: OpenBLAS, BLIS (OpenMP build) and oneDNN, each where installed; a missing one
# is named in OUT/run.log, and a run with no peer at all stops.
set -euo pipefail
out=${1:?usage: lab/bench/dot_peer_grid.sh OUT [REPS]}
reps=${2:-5}
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "error: REPS '$reps' is not a count of 1 or more" >&2; echo "  hint: lab/bench/dot_peer_grid.sh OUT 5" >&2; exit 4; }
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../../build}
for t in "$build/tandem" "$build/lab/blas_sgemm_compare" "$build/lab/cpu_peak"; do
  [[ -x $t ]] || { echo "error: $t not built" >&2; echo "  hint: cmake --build build --target tandem blas_sgemm_compare cpu_peak" >&2; exit 4; }
done
mkdir -p "$out"
log() { echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg): $*" | tee -a "$out/run.log" >&2; }
peers=()
for lib in ${PEERS:-libopenblas.so.0 /usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4 libdnnl.so.2}; do
  if [[ -e $lib ]] || grep -q "^\s*$lib " <(ldconfig -p); then peers+=("$lib"); else log "peer $lib: not installed, skipped"; fi
done
(( ${#peers[@]} )) || { echo "error: none of the peer libraries is installed" >&2; echo "  hint: apt-get install libopenblas0-pthread libdnnl2" >&2; exit 4; }
log "start; $(lscpu | grep -m1 'Model name' | tr -s ' '); $(nproc) cpus; reps $reps; peers ${peers[*]}"
cases='dot/perf/N:[0-9]+/(blas_sgemm|alg:F32_F32_F32)$'
for ((r = 1; r <= reps; ++r)); do
  for t in 1 "$(nproc)"; do
    log "round $r threads $t"
    threads=(OPENBLAS_NUM_THREADS=$t BLIS_NUM_THREADS=$t OMP_NUM_THREADS=$t)
    "$build/lab/cpu_peak" --threads "$t" > "$out/r${r}_peak_$t.txt"
    env "${threads[@]}" "$build/lab/blas_sgemm_compare" "${peers[@]}" > "$out/r${r}_peers_$t.txt"
    rc=0
    env "${threads[@]}" "$build/tandem" run --suite dot --profile nightly --filter "$cases" -n 7 \
      --out "$out/r${r}_tandem_$t" > "$out/r${r}_tandem_$t.log" 2>&1 || rc=$?
    (( rc == 0 )) || { cat "$out/r${r}_tandem_$t.log" >&2; echo "error: the dot run exited $rc" >&2; exit 1; }
    mv "$out/r${r}_tandem_$t/records.json" "$out/r${r}_tandem_$t.json"
    rm -rf "$out/r${r}_tandem_$t" "$out/r${r}_tandem_$t.log"
  done
done
log "end"
