#!/usr/bin/env bash
# The one command that validates tandem's GPU side on a lent GPU machine (CUDA toolkit, cuDNN,
# NCCL, cmake, PyTorch, JAX; no Debian packages, no network; the repo arrives with the
# ignored .deps/debs of ci/bundle_debs.sh). Never calls apt-get or the network.
#   ci/gpu_validate.sh OUTDIR [PHASES]
# PHASES (comma-separated, default all, in this order): machine bundle configure build cpu
# ctest quick nccl perf torch. A later call with the same OUTDIR adds or replaces those phases'
# rows, so a machine with a per-command time limit can run them in parts (ci/gpu_session.sh).
# Every step runs even when an earlier one failed; each writes OUTDIR/logs/<step>.log and a
# row of OUTDIR/steps.tsv; OUTDIR/summary.md is rebuilt from all rows at the end. Records:
# OUTDIR/quick_cuda/<suite>/, OUTDIR/perf/{dot,lstm}/, OUTDIR/perf/torch_lstm.json and
# lstm_vs_torch.md; the ctest log: OUTDIR/ctest_gpu.log. Exit 1 when any step failed.
# Environment: BUILD_DIR (default build-gpu), TANDEM_OFFLINE_PREFIX (default .deps/prefix),
# STEP_TIMEOUT (s, default 480: under the device tool's 600 s per command), DEADLINE (epoch
# seconds: no step outlives it, and one that cannot start 30 s before it is recorded "not run:
# out of time", so the caller still packs the results; TANDEM_CLOCK replaces `date +%s`), BUILD_TARGET (default gpu_validation:
# only what this script runs), GPU_VALIDATE_BACKEND (replaces the quick phase's `all` and the
# perf phase's `cuda`: ci/gpu_rehearsal.sh sets cpu to get records without a GPU), PERF_REPS (default 10), TANDEM_WHEEL_PYTHON (the python whose
# site-packages hold the nvidia-cudnn/nccl wheels; default /opt/torch/.venv/bin/python3, else
# the python3 on PATH).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: ci/gpu_validate.sh OUTDIR [PHASES]" >&2; exit 4; }
mkdir -p "$1/logs" && out=$(cd "$1" && pwd)
phases=,${2:-machine,bundle,configure,build,cpu,ctest,quick,nccl,perf,torch},
build=${BUILD_DIR:-$root/build-gpu}
tandem=$build/tandem
export TANDEM_OFFLINE_PREFIX=${TANDEM_OFFLINE_PREFIX:-$root/.deps/prefix}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 GTEST_COLOR=no
jobs=$(nproc)
touch "$out/steps.tsv"
# want PHASE: whether this call runs PHASE; it is then noted in phases_started, and a step of it
# cut by DEADLINE notes it in phases_cut (ci/gpu_session.sh rest runs those again).
current_phase=""
want() { [[ $phases == *,$1,* ]] && current_phase=$1 && echo "$1" >>"$out/phases_started"; }

# record NAME RESULT RC SECONDS NOTE: one row of steps.tsv (replacing an older row of NAME).
record() {
  grep -v -P "^\Q$1\E\t" "$out/steps.tsv" >"$out/steps.tsv.new" || true
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$out/steps.tsv.new"
  mv "$out/steps.tsv.new" "$out/steps.tsv"
  echo "gpu_validate: $1: $2 (rc $3, $4 s) $5"
}
# The time now, in epoch seconds: TANDEM_CLOCK (a command printing them) when set, so that a
# test decides when the deadline falls instead of the machine's load deciding it.
now_s() { if [ -n "${TANDEM_CLOCK:-}" ]; then $TANDEM_CLOCK; else date +%s; fi; }
# Seconds a step may run: STEP_TIMEOUT, cut to what is left before DEADLINE (0 or less once
# the deadline has passed: never hand that to timeout, for which 0 means no limit).
step_limit() {
  local limit=${STEP_TIMEOUT:-480} now; now=$(now_s)
  [ -z "${DEADLINE:-}" ] || limit=$(( limit < DEADLINE - now ? limit : DEADLINE - now ))
  echo "$limit"
}
# in_time NAME: prints the step's limit, or records NAME "not run: out of time" (its phase cut)
# and fails when under 30 s are left, so a step past the deadline never starts.
in_time() {
  local limit; limit=$(step_limit)
  if [ "$limit" -lt 30 ]; then
    not_run "$1" "out of time: the call's deadline is ${limit} s away" >&2; echo "$current_phase" >>"$out/phases_cut"; return 3
  fi
  echo "$limit"
}
# step NAME CMD...: runs CMD (time-limited) into logs/NAME.log and records pass or FAIL.
step() {
  local name=$1; shift
  local t0=$SECONDS rc limit
  limit=$(in_time "$name") || return 3
  if declare -F "$1" >/dev/null; then "$@"; else timeout -k 10 "$limit" "$@"; fi >"$out/logs/$name.log" 2>&1
  rc=$?
  local note=""
  [ $rc = 0 ] || note=$(why_failed "$out/logs/$name.log")
  [ $rc = 124 ] && note="timed out after $limit s" && echo "$current_phase" >>"$out/phases_cut"
  [ $rc = 0 ] && record "$name" pass 0 $((SECONDS - t0)) "$note" || record "$name" FAIL $rc $((SECONDS - t0)) "$note"
  return $rc
}
# The line of a log that says why: the first "error:", else the last non-empty line (one line, no |).
why_failed() {
  { grep -m1 -E "^error:|FAILED|Error" "$1" || grep -v '^\s*$' "$1" | tail -1; } | tr '|\t' '/ ' | cut -c1-160
}
not_run() { record "$1" "not run" - 0 "$2"; }  # a step whose tool is absent (not a failure)
# -DCUDNN_ROOT / -DNCCL_ROOT from the wheels of the python that holds them (the GPU image's
# venv), not whichever python3 is first on PATH.
wheel_roots() {
  local py=${TANDEM_WHEEL_PYTHON:-/opt/torch/.venv/bin/python3}
  [ -x "$py" ] || py=$(command -v python3) || return 0
  "$py" - <<'EOF' 2>/dev/null
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

if want machine; then
  "$root/ci/gpu_machine_facts.sh" "$root" >"$out/machine.txt" 2>&1
  step gpu_visible bash -c 'nvidia-smi -L | grep -q "^GPU 0"'
fi

if want bundle; then
  if [ -f "$TANDEM_OFFLINE_PREFIX/env.sh" ]; then
    record bundle pass 0 0 "already unpacked at $TANDEM_OFFLINE_PREFIX"
  elif compgen -G "$root/.deps/debs/*.deb" >/dev/null; then
    step bundle "$root/ci/unpack_debs.sh" "$root/.deps/debs" "$TANDEM_OFFLINE_PREFIX"
  else
    record bundle FAIL - 0 "no $TANDEM_OFFLINE_PREFIX/env.sh and no .deps/debs: run ci/bundle_debs.sh where apt works and carry .deps"
  fi
fi
# From here on the unpacked bundle is the dependency source (when there is one).
if [ -f "$TANDEM_OFFLINE_PREFIX/env.sh" ]; then . "$TANDEM_OFFLINE_PREFIX/env.sh"; else unset TANDEM_OFFLINE_PREFIX; fi
# No ssh/rsh on the GPU machine: Open MPI's one-host launcher for every phase (the bundle's
# env.sh sets it too, but a prefix unpacked before that change lacks it).
. "$root/runners/launch/mpi_local.sh"

if want configure; then
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
  generator=Ninja; command -v ninja >/dev/null || generator="Unix Makefiles"
  cfg=(-S "$root" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release ${arch:+-DCMAKE_CUDA_ARCHITECTURES=$arch}
       $(wheel_roots))
  # Everything GPU-side must be found; if not, configure again without the demand so the
  # rest still runs and shows what it can (the failed row stays in the summary).
  if ! step configure cmake "${cfg[@]}" -DTANDEM_REQUIRE="CUDA;cuDNN;NCCL;MPI;oneDNN"; then
    step configure_without_required cmake "${cfg[@]}" -DTANDEM_REQUIRE=""
  fi
fi
want build && step build cmake --build "$build" -j "$jobs" --target "${BUILD_TARGET:-gpu_validation}"

if want cpu; then
  # The bundle's Open MPI on this machine, before any NCCL step depends on it: two ranks under
  # mpirun and a singleton MPI_Init (a binary started without mpirun), with no ssh or rsh.
  step mpi_np2 mpirun -np 2 "$build/engine/comm/comm_mpi_test" --gtest_filter='-*Nccl*'
  step mpi_singleton "$build/engine/comm/comm_mpi_test" --gtest_filter='-*Nccl*'
  # The binary loads the cuDNN and NCCL it was linked with (a GPU test then runs, not skips
  # for a missing library): what ldd resolves them to, and the cuDNN version it reports.
  step gpu_libraries gpu_libraries
fi

if want ctest; then
  t0=$SECONDS
  if limit=$(in_time ctest_gpu); then
    (cd "$build" && timeout -k 10 "$limit" ctest -L gpu -V --no-tests=error --output-junit "$out/ctest_gpu.xml") \
      >"$out/ctest_gpu.log" 2>&1
    rc=$?
    note="ctest_gpu.log: $(grep -m1 -E "tests passed|No tests were found" "$out/ctest_gpu.log")"
    [ $rc != 124 ] || { note="timed out: $note"; echo ctest >>"$out/phases_cut"; }
    [ $rc = 0 ] && record ctest_gpu pass 0 $((SECONDS - t0)) "$note" || record ctest_gpu FAIL $rc $((SECONDS - t0)) "$note"
    step ctest_gpu_no_skips no_gtest_skips "$out/ctest_gpu.log"
  fi
fi

if want quick; then
  suites=$("$tandem" list --profile quick 2>/dev/null | cut -d/ -f1 | sort -u)
  [ -n "$suites" ] || record quick_cuda FAIL - 0 "no suites listed (is $tandem built?)"
  for s in $suites; do
    # --backend all (cpu + cuda) so each CUDA verdict stands next to the CPU one.
    step "quick_cuda_$s" "$tandem" run -q --profile quick --backend "${GPU_VALIDATE_BACKEND:-all}" --suite "$s" --out "$out/quick_cuda/$s"
    if [ -f "$out/quick_cuda/$s/records.json" ]; then
      step "quick_cuda_${s}_as_cpu" verdicts "$out/quick_cuda/$s/records.json" --paired
    fi
  done
  # The imported example programs (docs/IMPORT.md), exported once where JAX is: every check
  # of `tandem run --program` with the engine on the GPU beside the CPU.
  for d in "$root"/examples/exported/*/; do
    n=$(basename "$d")
    step "program_cuda_$n" "$tandem" run -q --program "$d" --backend "${GPU_VALIDATE_BACKEND:-all}" --out "$out/program/$n"
    [ -f "$out/program/$n/records.json" ] && step "program_cuda_${n}_as_cpu" verdicts "$out/program/$n/records.json" --paired
  done
fi

if want nccl; then
  # Every NCCL device test (NcclEveryOp.*, Nccl.*, the semantics tests' Nccl* cases).
  step nccl_np1 mpirun -np 1 "$build/engine/comm/comm_mpi_test" --gtest_filter='*Nccl*'
  step nccl_np1_no_skips no_gtest_skips "$out/logs/nccl_np1.log"
  # The sweep on device buffers: every op and dtype, checked, next to the raw NCCL call.
  step nccl_sweep_np1 mpirun -np 1 "$tandem" collectives --backend nccl --ops all -d all -o all \
    -b 1K -e 16M -n 10 -w 3 --out "$out/nccl_sweep"
fi

if want perf; then
  reps=${PERF_REPS:-10}
  for s in dot lstm; do
    step "perf_cuda_$s" "$tandem" run -q --profile nightly --backend "${GPU_VALIDATE_BACKEND:-cuda}" --suite $s --filter "^$s/perf/" \
      -n "$reps" --out "$out/perf/$s"
    [ -f "$out/perf/$s/records.json" ] && step "perf_cuda_${s}_checked" verdicts "$out/perf/$s/records.json"
  done
fi

if want torch; then
  bench="$root/tools/perf/torch_lstm_bench.py"
  shapes_tool=$(ls "$build"/tools/lstm_cpu_bench "$build"/lstm_cpu_bench 2>/dev/null | head -1)
  if ! python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
    not_run torch_lstm "python3 has no torch with CUDA"
  elif [ ! -f "$bench" ] || [ -z "$shapes_tool" ] || [ ! -f "$out/perf/lstm/records.json" ]; then
    record torch_lstm FAIL - 0 "missing: torch_lstm_bench.py, lstm_cpu_bench or perf/lstm records"
  else
    mkdir -p "$out/perf"
    "$shapes_tool" --list-shapes >"$out/perf/lstm_shapes.json"
    step torch_lstm bash -c 'python3 "$0" --shapes "$1" --device cuda --math fp32 --reps "$2" >"$3"' \
      "$bench" "$out/perf/lstm_shapes.json" "${PERF_REPS:-10}" "$out/perf/torch_lstm.json"
    step lstm_vs_torch bash -c 'python3 "$0" "$1" "$2" >"$3"' "$root/ci/gpu_lstm_vs_torch.py" \
      "$out/perf/lstm/records.json" "$out/perf/torch_lstm.json" "$out/perf/lstm_vs_torch.md"
  fi
fi

# The summary, rebuilt from every row so far.
{
  echo "# gpu_validate summary"
  echo
  echo "$(date -u +%FT%TZ), commit $(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo "${TANDEM_COMMIT:-unknown}"), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || echo 'no nvidia-smi')"
  echo
  echo "| step | result | rc | seconds | note |"
  echo "|---|---|---|---|---|"
  awk -F'\t' '{printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5}' "$out/steps.tsv"
  for f in "$out"/logs/*_as_cpu.log "$out"/logs/*_checked.log "$out"/logs/*no_skips.log; do
    [ -f "$f" ] && { echo; echo "## $(basename "$f" .log)"; echo '```'; head -40 "$f"; echo '```'; }
  done
  for f in "$out"/perf/dot/summary.md "$out"/perf/lstm/summary.md "$out"/perf/lstm_vs_torch.md; do
    [ -f "$f" ] && { echo; echo "## ${f#"$out"/}"; echo; sed 's/^# /### /' "$f"; }
  done
} >"$out/summary.md"
failed=$(awk -F'\t' '$2 == "FAIL"' "$out/steps.tsv" | wc -l)
echo "gpu_validate: $failed failed step(s); summary: $out/summary.md"
[ "$failed" = 0 ]
