#!/usr/bin/env bash
# The interleaved A/B performance gate: runs the baseline binary and the current binary as separate processes,
# alternating A B A B … (GATE_AB_RUNS per side, default 5), each process the same fixed perf selection, then `tandem
# gate --baseline-runs … --current-runs …`: per-case run medians, a t-test across processes (the between-run spread is
# the noise), Holm across cases. Same binary twice is an A/A check. Exit: the gate's (0, 1, 2, 3, 4, 5, 6).
#   ci/gate_ab.sh BASE_BIN CUR_BIN [extra `tandem gate` args]
# GATE_AB_FILTER, GATE_AB_PROFILE (nightly), GATE_AB_REPS (-n, default 5), GATE_AB_OUT
# (results/gate-ab), GATE_AB_BLAS_THREADS (1), GATE_AB_BASE_ENV / GATE_AB_CUR_ENV ("VAR=value …" for one side, e.g.
# TANDEM_INJECT=perf_dot_extra_25pct to plant a slowdown). Cost: docs/CI.md.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: ci/gate_ab.sh BASE_BIN CUR_BIN [tandem gate args]" >&2; exit 4; }
base_bin=$1 cur_bin=$2
shift 2
for b in "$base_bin" "$cur_bin"; do [ -x "$b" ] || { echo "error: $b is not an executable tandem" >&2; exit 4; }; done
runs=${GATE_AB_RUNS:-5}
filter=${GATE_AB_FILTER:-'dot/perf/N:1024/alg:(F32_F32_F32|TF32_TF32_F32|BF16_BF16_F32_X3)$|lstm/perf/deepbench/B:16/T:25/I:512/H:512/L:1/bidi:0/(fwd|train)$'}
out=${GATE_AB_OUT:-results/gate-ab}
rm -rf "$out/a" "$out/b" && mkdir -p "$out/a" "$out/b" || exit 5
# One BLAS thread per process: on a shared 2-core host two threads make the run-to-run spread
# several times larger (docs/CI.md); the gate judges process CPU time (`--run-metric`).
export OPENBLAS_NUM_THREADS=${GATE_AB_BLAS_THREADS:-1} OMP_NUM_THREADS=${GATE_AB_BLAS_THREADS:-1}
one() {  # SIDE BIN ENV INDEX
  env -u TANDEM_INJECT $3 "$2" run -q --profile "${GATE_AB_PROFILE:-nightly}" --backend cpu --filter "$filter" \
    -n "${GATE_AB_REPS:-5}" --out "$out/$1/$4" >"$out/$1/$4.log" 2>&1
  local rc=$?
  [ $rc = 0 ] || [ $rc = 1 ] || { echo "error: side $1 run $4 exited $rc (see $out/$1/$4.log)" >&2; exit $rc; }
}
start=$(date +%s)
for i in $(seq 1 "$runs"); do
  # Alternate which side goes first, so neither always runs right after the other.
  if [ $((i % 2)) = 1 ]; then one a "$base_bin" "${GATE_AB_BASE_ENV:-}" "$i"; one b "$cur_bin" "${GATE_AB_CUR_ENV:-}" "$i"
  else one b "$cur_bin" "${GATE_AB_CUR_ENV:-}" "$i"; one a "$base_bin" "${GATE_AB_BASE_ENV:-}" "$i"; fi
done
echo "gate_ab: $runs processes per side in $(( $(date +%s) - start )) s (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
"$cur_bin" gate --baseline-runs "$out"/a/*/records.json --current-runs "$out"/b/*/records.json \
  --summary "$out/gate.md" "$@"
