#!/usr/bin/env bash
# ci/gpu_session.sh keeps a device call inside its limits: with a budget too short for every
# step, the steps past the deadline are recorded "not run: out of time" instead of outliving
# the call, the results are still packed into $OUT within the device tool's limits
# (ci/device_limits.py), and `rest` then runs exactly the phases that were cut.
#   ci/gpu_session_test.sh BUILD_DIR     (a built tree with the tandem binary)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
# The session keeps its state in <repo>/out/gpu: run it from a throw-away copy of what it uses.
mkdir -p "$tmp/repo/runners" && cp -r "$here" "$tmp/repo/ci" && cp -r "$here/../runners/launch" "$tmp/repo/runners/"
export BUILD_DIR=$1 TANDEM_OFFLINE_PREFIX=/nonexistent CUDA_VISIBLE_DEVICES= STEP_TIMEOUT=120
# 45 s: the machine phase fits; the perf phase at 1000 repetitions (minutes of CPU timing)
# is cut by the deadline: its first step killed at it, the second not started.
OUT=$tmp/call1 GPU_SESSION_BUDGET=45 GPU_VALIDATE_BACKEND=cpu PERF_REPS=1000 "$tmp/repo/ci/gpu_session.sh" machine,perf >"$tmp/log1" 2>&1
rc=$?
steps=$tmp/repo/out/gpu/steps.tsv
check "call 1 packs its results (exit $rc)" '[ -f "$tmp/call1/gpu-results.tar.xz" ] && [ -f "$tmp/call1/summary.md" ]'
check "what call 1 packed would come back" 'python3 "$here/device_limits.py" "$tmp/call1" >/dev/null'
check "a step past the deadline is 'not run: out of time'" 'grep -qP "\tnot run\t.*\tout of time" "$steps"'
check "no step outlived the budget (call 1 took under 75 s)" '[ "$(grep -o "packed in [0-9]*" "$tmp/log1" | grep -o "[0-9]*$")" -lt 75 ]'
check "the perf phase is noted as cut" 'grep -qx perf "$tmp/repo/out/gpu/phases_cut"'
OUT=$tmp/call2 GPU_SESSION_BUDGET=1 "$tmp/repo/ci/gpu_session.sh" rest >"$tmp/log2" 2>&1
check "rest runs the phases cut or never reached, not the finished ones" \
  'grep -q "^gpu_session: phases .*perf" "$tmp/log2" && ! grep -q "^gpu_session: phases .*machine" "$tmp/log2"'
[ $fail = 0 ] || { echo "--- call 1:"; cat "$tmp/log1"; echo "--- call 2:"; cat "$tmp/log2"; }
exit $fail
