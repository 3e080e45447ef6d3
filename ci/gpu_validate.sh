#!/usr/bin/env bash
# The one command that validates tandem's GPU side on a lent GPU machine (CUDA toolkit, cuDNN,
# NCCL, cmake, PyTorch, JAX; no Debian packages, no network; the repo arrives with the
# ignored .deps/debs of ci/bundle_debs.sh). Never calls apt-get or the network.
#   ci/gpu_validate.sh OUTDIR [PHASES]
#   ci/gpu_validate.sh --phases       the phases, in order (ci/gpu_plan.tsv)
# PHASES (comma-separated, default all, in ci/gpu_plan.tsv's order: by value): machine bundle configure build ctest
# quick programs cpu nccl perf torch sanitizer. A later call with the same OUTDIR adds or replaces those phases' rows,
# so a machine with a per-command time limit can run them in parts (ci/gpu_session.sh). Every step runs even when an
# earlier one failed, each under the deadline guard (ci/gpu_steps.sh); each writes OUTDIR/logs/<step>.log and a row of
# OUTDIR/steps.tsv; OUTDIR/summary.md is rebuilt after every phase, and GPU_AFTER_PHASE (a shell command) runs then.
# Records: OUTDIR/quick_cuda/<suite>/, OUTDIR/program/<name>/, OUTDIR/perf/{dot,lstm}/, OUTDIR/perf/torch_lstm.json and
# lstm_vs_torch.md, OUTDIR/sanitizer/ and sanitizer.md; the ctest log: OUTDIR/ctest_gpu.log. Exit 1 when any step
# failed. Environment: BUILD_DIR (default build-gpu), TANDEM_OFFLINE_PREFIX (default .deps/prefix), STEP_TIMEOUT (s,
# default 480: under the device tool's 600 s per command), DEADLINE (epoch seconds: no step outlives it, and one that
# cannot start GPU_STEP_MIN_S (default 30) s before it is recorded "not run: out of time", so the caller still packs the
# results; TANDEM_CLOCK replaces `date +%s`), BUILD_TARGET (default gpu_validation: only what this script runs),
# GPU_VALIDATE_BACKEND (replaces the quick phase's `all` and the perf phase's `cuda`: ci/gpu_rehearsal.sh sets cpu to
# get records without a GPU), PERF_REPS (default 10), SANITIZER_STEP_S (default 90, per binary), TANDEM_WHEEL_PYTHON
# (the python whose site-packages hold the nvidia-cudnn/nccl wheels; default /opt/torch/.venv/bin/python3, else the
# python3 on PATH).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
plan_phases() { awk -F'\t' '!/^#/ && NF {print $1}' "$root/ci/gpu_plan.tsv" | paste -sd, -; }
[ "${1:-}" != --phases ] || { plan_phases; exit 0; }
[ $# -ge 1 ] || { echo "usage: ci/gpu_validate.sh OUTDIR [PHASES]" >&2; exit 4; }
mkdir -p "$1/logs" && out=$(cd "$1" && pwd)
phases=,${2:-$(plan_phases)},
build=${BUILD_DIR:-$root/build-gpu}
tandem=$build/tandem
export out root build tandem  # what the shell-function steps read in their child bash
export TANDEM_OFFLINE_PREFIX=${TANDEM_OFFLINE_PREFIX:-$root/.deps/prefix}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 GTEST_COLOR=no
jobs=$(nproc)
touch "$out/steps.tsv"
. "$root/ci/gpu_steps.sh"
current_phase=""

# -DCUDNN_ROOT / -DNCCL_ROOT from the wheels of the python that holds them (the GPU image's
# venv), not whichever python3 is first on PATH.
wheel_roots() {
  local py=${TANDEM_WHEEL_PYTHON:-/opt/torch/.venv/bin/python3}
  [ -x "$py" ] || py=$(command -v python3) || return 0
  timeout 60 "$py" - <<'EOF' 2>/dev/null
import importlib
for var, mods in (("CUDNN_ROOT", ("nvidia.cudnn",)), ("NCCL_ROOT", ("nvidia.nccl", "nvidia.cu13"))):
    for m in mods:
        try:
            print(f"-D{var}={list(importlib.import_module(m).__path__)[0]}"); break
        except ImportError:
            pass
EOF
}
# Where the tandem binary's cuDNN and NCCL come from, and the cuDNN it loads (context.cudnn of
# a record); fails when either does not resolve.
gpu_libraries() {
  local deps; deps=$(ldd "$tandem")
  grep -E 'libcudnn|libnccl|libcublas|libcudart|not found' <<<"$deps"
  if grep -q 'not found' <<<"$deps" || ! grep -q libcudnn <<<"$deps" || ! grep -q libnccl <<<"$deps"; then
    echo "error: $tandem does not resolve cuDNN and NCCL"; return 1
  fi
  "$tandem" check -q --backend cpu --suite dot --filter 'f32' --out "$out/libs_probe" >/dev/null 2>&1
  python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['records'][0]['context']; print('loaded cuDNN', c.get('cudnn'), 'NCCL', c.get('nccl')); sys.exit(0 if c.get('cudnn') else 1)" \
    "$out/libs_probe/records.json"
}
# Verdicts of a records.json, per backend, with every non-pass listed. Exits 1 on any fail or
# error, when no CUDA case passed, and (with --paired, for runs of --backend all) when a case
# passes on cpu but not on cuda: CUDA must run every case the CPU runs, a skip there is a gap.
verdicts() {
  python3 - "$@" <<'EOF'
import collections, json, sys
recs = json.load(open(sys.argv[1]))["records"]
paired = "--paired" in sys.argv
n = collections.Counter((r["backend"], r["verdict"]) for r in recs)
print(f"{len(recs)} records: " + ", ".join(f"{b} {v} {k}" for (b, v), k in sorted(n.items())))
by_case = {(r["case"].rsplit("/", 1)[0], r["backend"]): r for r in recs}
bad = [r["case"] for r in recs if r["verdict"] in ("fail", "error")]
if paired:
    bad += [r["case"] for (name, b), r in by_case.items() if b == "cuda" and r["verdict"] != "pass"
            and by_case.get((name, "cpu"), {}).get("verdict") == "pass"]
for r in recs:
    if r["verdict"] != "pass":
        why = r["message"].splitlines()[0] if r["message"] else ""
        print(f"  {'FAILS' if r['case'] in bad else 'note'}: {r['verdict']}: {r['case']}: {why}")
if not n[("cuda", "pass")]:
    print("error: no CUDA case passed")
sys.exit(1 if bad or not n[("cuda", "pass")] else 0)
EOF
}
# gtest skips pass in ctest: on a GPU machine a skipped GPU test is a failure unless its
# message carries a reason of ci/gtest_skips.py's table of skips by design (too few ranks at
# one GPU, a combination JAX leaves undefined); so is a log in which no test passed.
no_gtest_skips() { python3 "$root/ci/gtest_skips.py" "$1"; }

# ctest -L gpu into ctest_gpu.log (and its JUnit XML); the note is ctest's count line. Every test has a limit (its
# TIMEOUT, else CTEST_TEST_TIMEOUT, default 150 s), so one hung CUDA test ends there and the others still run.
ctest_gpu() {
  cd "$build" && ctest -L gpu -V --no-tests=error --timeout "${CTEST_TEST_TIMEOUT:-150}" --output-junit "$out/ctest_gpu.xml" >"$out/ctest_gpu.log" 2>&1
  local rc=$?
  echo "note: ctest_gpu.log: $(grep -m1 -E "tests passed|No tests were found" "$out/ctest_gpu.log")"
  grep -E "^\s*[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception)\)" "$out/ctest_gpu.log" | head -20
  return $rc
}

phase_machine() {
  step_cap=60 step machine_facts bash -c '"$1/ci/gpu_machine_facts.sh" "$1" >"$2/machine.txt" 2>&1' facts "$root" "$out"
  step_cap=30 step gpu_visible bash -c 'nvidia-smi -L | grep -q "^GPU 0"'
}

phase_bundle() {
  if [ -f "$TANDEM_OFFLINE_PREFIX/env.sh" ]; then
    record bundle pass 0 0 "already unpacked at $TANDEM_OFFLINE_PREFIX"
  elif compgen -G "$root/.deps/debs/*.deb" >/dev/null; then
    step bundle "$root/ci/unpack_debs.sh" "$root/.deps/debs" "$TANDEM_OFFLINE_PREFIX"
  else
    record bundle FAIL - 0 "no $TANDEM_OFFLINE_PREFIX/env.sh and no .deps/debs: run ci/bundle_debs.sh where apt works and carry .deps"
  fi
}
# From the bundle on, the unpacked bundle is the dependency source (when there is one). No
# ssh/rsh on the GPU machine: Open MPI's one-host launcher for every phase (the bundle's env.sh
# sets it too, but a prefix unpacked before that change lacks it).
use_bundle() {
  if [ -f "$TANDEM_OFFLINE_PREFIX/env.sh" ]; then . "$TANDEM_OFFLINE_PREFIX/env.sh"; else unset TANDEM_OFFLINE_PREFIX; fi
  . "$root/runners/launch/mpi_local.sh"
}

phase_configure() {
  local arch generator cfg
  arch=$(timeout 20 nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
  generator=Ninja; command -v ninja >/dev/null || generator="Unix Makefiles"
  cfg=(-S "$root" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release ${arch:+-DCMAKE_CUDA_ARCHITECTURES=$arch}
       $(wheel_roots))
  # Everything GPU-side must be found; if not, configure again without the demand so the
  # rest still runs and shows what it can (the failed row stays in the summary).
  if ! step configure cmake "${cfg[@]}" -DTANDEM_REQUIRE="CUDA;cuDNN;NCCL;MPI;oneDNN"; then
    step configure_without_required cmake "${cfg[@]}" -DTANDEM_REQUIRE=""
  fi
}

# The build, then its own measure for the next plan: the summed command time of .ninja_log.
phase_build() {
  step build cmake --build "$build" -j "$jobs" --target "${BUILD_TARGET:-gpu_validation}"
  [ ! -f "$build/.ninja_log" ] ||
    step_cap=30 step build_time python3 "$root/ci/gpu_build_estimate.py" "$build" --cores "$jobs"
}

phase_ctest() {
  step ctest_gpu ctest_gpu
  [ ! -f "$out/ctest_gpu.log" ] || step_cap=60 step ctest_gpu_no_skips no_gtest_skips "$out/ctest_gpu.log"
}

phase_quick() {
  local s suites
  suites=$(timeout 30 "$tandem" list --profile quick 2>/dev/null | cut -d/ -f1 | sort -u)
  [ -n "$suites" ] || record quick_cuda FAIL - 0 "no suites listed (is $tandem built?)"
  for s in $suites; do
    # --backend all (cpu + cuda) so each CUDA verdict stands next to the CPU one.
    step "quick_cuda_$s" "$tandem" run -q --profile quick --backend "${GPU_VALIDATE_BACKEND:-all}" --suite "$s" --out "$out/quick_cuda/$s"
    [ ! -f "$out/quick_cuda/$s/records.json" ] ||
      step_cap=60 step "quick_cuda_${s}_as_cpu" verdicts "$out/quick_cuda/$s/records.json" --paired
  done
  # The LSTM bound was calibrated on the CPU kernel: each case's error / tolerance on CUDA beside it.
  [ ! -f "$out/quick_cuda/lstm/records.json" ] || step_cap=60 step lstm_ratios bash -c \
    'python3 "$0" "$1" >"$2"' "$root/ci/gpu_ratio_table.py" "$out/quick_cuda/lstm/records.json" "$out/lstm_ratios.md"
}

# The imported example programs (docs/IMPORT.md), exported once where JAX is: every check of
# `tandem run --program` with the engine on the GPU beside the CPU.
phase_programs() {
  local d n
  for d in "$root"/examples/exported/*/; do
    n=$(basename "$d")
    step "program_cuda_$n" "$tandem" run -q --program "$d" --backend "${GPU_VALIDATE_BACKEND:-all}" --out "$out/program/$n"
    [ ! -f "$out/program/$n/records.json" ] ||
      step_cap=60 step "program_cuda_${n}_as_cpu" verdicts "$out/program/$n/records.json" --paired
  done
}

phase_cpu() {
  # The bundle's Open MPI on this machine: two ranks under mpirun and a singleton MPI_Init (a
  # binary started without mpirun), with no ssh or rsh.
  step mpi_np2 mpirun -np 2 "$build/engine/comm/comm_mpi_test" --gtest_filter='-*Nccl*'
  step mpi_singleton "$build/engine/comm/comm_mpi_test" --gtest_filter='-*Nccl*'
  # The binary loads the cuDNN and NCCL it was linked with (a GPU test then runs, not skips
  # for a missing library): what ldd resolves them to, and the cuDNN version it reports.
  step_cap=60 step gpu_libraries gpu_libraries
}

phase_nccl() {
  # Every NCCL device test (NcclEveryOp.*, Nccl.*, the semantics tests' Nccl* cases).
  step nccl_np1 mpirun -np 1 "$build/engine/comm/comm_mpi_test" --gtest_filter='*Nccl*'
  step_cap=60 step nccl_np1_no_skips no_gtest_skips "$out/logs/nccl_np1.log"
  # The sweep on device buffers: every op and dtype, checked, next to the raw NCCL call.
  step nccl_sweep_np1 mpirun -np 1 "$tandem" collectives --backend nccl --ops all -d all -o all \
    -b 1K -e 16M -n 10 -w 3 --out "$out/nccl_sweep"
}

phase_perf() {
  local s reps=${PERF_REPS:-10}
  for s in dot lstm; do
    step "perf_cuda_$s" "$tandem" run -q --profile nightly --backend "${GPU_VALIDATE_BACKEND:-cuda}" --suite $s --filter "^$s/perf/" \
      -n "$reps" --out "$out/perf/$s"
    [ ! -f "$out/perf/$s/records.json" ] || step_cap=60 step "perf_cuda_${s}_checked" verdicts "$out/perf/$s/records.json"
  done
}

phase_torch() {
  # The shapes are those of the perf phase's own lstm/perf records (torch_lstm_bench.py reads them).
  local bench="$root/tools/oracles/torch_lstm_bench.py"
  if ! timeout 60 python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
    not_run torch_lstm "python3 has no torch with CUDA"
  elif [ ! -f "$bench" ] || [ ! -f "$out/perf/lstm/records.json" ]; then
    record torch_lstm FAIL - 0 "missing: torch_lstm_bench.py or perf/lstm records"
  else
    step torch_lstm bash -c 'python3 "$0" --shapes "$1" --device cuda --math fp32 --reps "$2" >"$3"' \
      "$bench" "$out/perf/lstm/records.json" "${PERF_REPS:-10}" "$out/perf/torch_lstm.json"
    step_cap=60 step lstm_vs_torch bash -c 'python3 "$0" "$1" "$2" >"$3"' "$root/ci/gpu_lstm_vs_torch.py" \
      "$out/perf/lstm/records.json" "$out/perf/torch_lstm.json" "$out/perf/lstm_vs_torch.md"
  fi
}

# compute-sanitizer on the CUDA test binaries (memcheck on each, initcheck on the LSTM's
# cases): which binary with which filter comes from ctest's own list (ci/gpu_sanitizer_plan.py),
# each binary a step capped at SANITIZER_STEP_S, the reports joined into sanitizer.md.
phase_sanitizer() {
  local tool name exe filter cs
  step_cap=60 step sanitizer_plan bash -c 'python3 "$0" "$1" >"$2"' "$root/ci/gpu_sanitizer_plan.py" "$build" "$out/sanitizer_plan.tsv" || return 0
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1)
  mkdir -p "$out/sanitizer"
  while IFS=$'\t' read -r tool name exe filter; do
    if [ -z "$cs" ]; then not_run "sanitizer_${tool}_$name" "no compute-sanitizer here"; continue; fi
    step_cap=${SANITIZER_STEP_S:-90} step "sanitizer_${tool}_$name" "$cs" --tool "$tool" --error-exitcode 86 \
      --log-file "$out/sanitizer/${tool}_$name.txt" "$exe" --gtest_filter="$filter" </dev/null
  done <"$out/sanitizer_plan.tsv"
  python3 "$root/ci/gpu_sanitizer_plan.py" --report "$out" >"$out/sanitizer.md" 2>&1
}

# want PHASE: whether this call runs PHASE; it is then noted in phases_started, and a step of
# it cut by DEADLINE notes it in phases_cut (ci/gpu_session.sh rest runs those again).
want() { [[ $phases == *,$1,* ]] && current_phase=$1 && echo "$1" >>"$out/phases_started"; }
# A phase that cannot start GPU_STEP_MIN_S before the deadline is one row, named by the phase,
# "not run: out of time" (and noted cut, handed on with the rest at the end); after every phase
# that ran, the results so far are handed on (GPU_AFTER_PHASE).
for p in $(plan_phases | tr , ' '); do
  if want "$p"; then
    if in_time "$p" >/dev/null; then "phase_$p"; phase_done "$p"; fi
  fi
  [ "$p" != bundle ] || use_bundle
done
write_summary
failed=$(awk -F'\t' '$2 == "FAIL"' "$out/steps.tsv" | wc -l)
echo "gpu_validate: $failed failed step(s); summary: $out/summary.md"
[ "$failed" = 0 ]
