#!/usr/bin/env bash
# For users' nightly jobs: build, run the nightly profile, add the records to the SQLite
# history (results/history.sqlite, or HISTORY_DB), and render the run's report and the
# history's trend report with change points under results/nightly/<UTC date>/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/ci/offline_env.sh"  # TANDEM_OFFLINE_PREFIX: the unpacked bundle, no apt-get
"$root/ci/install_deps.sh"
"$root/ci/build.sh"
tandem="${BUILD_DIR:-$root/build}/tandem"
out="$root/results/nightly/$(date -u +%Y-%m-%d)"
db="${HISTORY_DB:-$root/results/history.sqlite}"
# A failed run or sweep stays out of the history: its missing or failed cases
# would read there as regressions; its report still shows what happened.
history_add() {  # RC RECORDS
  if [[ $1 != 0 ]]; then echo "nightly: NOT adding $2 to the history: its run exited $1" >&2; return 0; fi
  "$tandem" history add "$2" --db "$db"
}
set +e
"$tandem" run -q --profile nightly --backend auto -n "${NIGHTLY_REPETITIONS:-10}" --out "$out"
run_rc=$?
set -e
history_add "$run_rc" "$out/records.json"
"$tandem" report "$out/records.json" -o "$out/report"
# Collectives sweeps at 2 and 4 MPI ranks, every op of the sweep next to its raw MPI call, so
# busbw per op and size gets a trend in the history (skipped where MPI is not installed).
if command -v mpirun >/dev/null; then
  for np in 2 4; do
    set +e
    TANDEM="$tandem" "$root/runners/launch/mpirun.sh" "$np" collectives -b 1K -e "${NIGHTLY_SWEEP_MAX_BYTES:-16M}" \
      -n "${NIGHTLY_SWEEP_ITERS:-50}" -w 5 --ops all --out "$out/collectives-np$np"
    sweep_rc=$?
    set -e
    [[ $sweep_rc == 0 || $run_rc != 0 ]] || run_rc=$sweep_rc
    if [[ -f $out/collectives-np$np/records.json ]]; then
      history_add "$sweep_rc" "$out/collectives-np$np/records.json"
      "$tandem" report "$out/collectives-np$np/records.json" -o "$out/collectives-np$np/report"
    fi
  done
  # The dot and LSTM perf cases on 2 ranks in lockstep (docs/MULTINODE.md): each iteration the
  # slowest rank's time, so the history tracks a synchronous 2-rank step. NIGHTLY_MULTI_RANK=0 skips.
  if [ "${NIGHTLY_MULTI_RANK:-1}" != 0 ]; then
    set +e
    TANDEM="$tandem" "$root/runners/launch/mpirun.sh" 2 run -q --profile nightly --backend cpu \
      --filter '^(dot|lstm)/perf/' -n "${NIGHTLY_REPETITIONS:-10}" --out "$out/perf-np2"
    mr_rc=$?
    set -e
    [[ $mr_rc == 0 || $run_rc != 0 ]] || run_rc=$mr_rc
    [[ ! -f $out/perf-np2/records.json ]] || history_add "$mr_rc" "$out/perf-np2/records.json"
  fi
fi
"$tandem" history report --db "$db" -o "$out/history"
# Each suite's power: every injected engine fault must be caught by the suite that owns it
# (docs/FAULTS.md); an escape exits 1. NIGHTLY_FAULTS=0 skips it.
if [ "${NIGHTLY_FAULTS:-1}" != 0 ]; then
  set +e
  "$tandem" faults --suites owner --out "$out/faults"
  faults_rc=$?
  set -e
  [[ $faults_rc == 0 || $run_rc != 0 ]] || run_rc=$faults_rc
fi
# The differential program fuzz: 10^5 programs, disagreements judged by JAX (ci/nightly_fuzz.sh,
# docs/FUZZING.md); the engine disagreeing with JAX exits 1. NIGHTLY_FUZZ=0 skips it.
if [ "${NIGHTLY_FUZZ:-1}" != 0 ]; then
  OUT="$out/fuzz" "$root/ci/nightly_fuzz.sh" "$tandem" "${TANDEM_PYTHON:-python3}" \
    || { rc=$?; [ "$run_rc" != 0 ] || run_rc=$rc; }
fi
# The sanitizer job (ASan+UBSan ctest, the quick job, 10^5 fuzz inputs); NIGHTLY_SANITIZE=0 skips it.
# Its logs and summary.txt go beside the night's results (SANITIZE_OUT).
[ "${NIGHTLY_SANITIZE:-1}" = 0 ] || SANITIZE_OUT="$out/sanitize" "$root/ci/sanitize.sh" \
  || { rc=$?; [ "$run_rc" != 0 ] || run_rc=$rc; }
# The cluster label in full (runners/cluster): every case of each suite across the namespaced
# hosts under mpirun and srun, and the cluster's faults. Needs root; NIGHTLY_CLUSTER=0 skips it.
if [ "${NIGHTLY_CLUSTER:-1}" != 0 ]; then
  CLUSTER_FULL=1 ctest --test-dir "${BUILD_DIR:-$root/build}" -L cluster --output-on-failure > "$out/cluster.log" 2>&1 \
    || { rc=$?; echo "nightly: the cluster tests failed (log: $out/cluster.log)" >&2; [ "$run_rc" != 0 ] || run_rc=$rc; }
fi
# The GPU session's dress rehearsal (docs/GPU_VALIDATION.md): the device calls in a root that
# mimics the GPU machine. Needs root and a Debian/Ubuntu mirror; NIGHTLY_GPU_REHEARSAL=0 skips it.
if [ "${NIGHTLY_GPU_REHEARSAL:-1}" != 0 ] && [ "$(id -u)" = 0 ]; then
  GPU_REHEARSAL_LOGS="$out/gpu-rehearsal" "$root/ci/gpu_rehearsal.sh" || { rc=$?; [ "$run_rc" != 0 ] || run_rc=$rc; }
elif [ "${NIGHTLY_GPU_REHEARSAL:-1}" != 0 ]; then
  echo "nightly: GPU rehearsal NOT run: it makes a root and needs root (NIGHTLY_GPU_REHEARSAL=0 to silence)" >&2
fi
# The arm64 build under QEMU (ci/aarch64.sh: cross build, engine/reference/harness unit tests,
# the quick profile; docs/CI.md). Its apt step needs root once; NIGHTLY_AARCH64=0 skips it.
if [ "${NIGHTLY_AARCH64:-1}" != 0 ]; then
  OUT="$out/aarch64" "$root/ci/aarch64.sh" > "$out/aarch64.log" 2>&1 \
    || { rc=$?; echo "nightly: the aarch64 job failed (log: $out/aarch64.log)" >&2; [ "$run_rc" != 0 ] || run_rc=$rc; }
fi
echo "nightly: report $out/report/index.html, history $out/history/index.html"
exit $run_rc
