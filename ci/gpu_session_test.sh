#!/usr/bin/env bash
# ci/gpu_session.sh keeps a device call inside its limits: with a budget too short for every
# step, the steps past the deadline are recorded "not run: out of time" instead of outliving
# the call, the results are still packed into $OUT within the device tool's limits
# (ci/device_limits.py), `rest` then runs exactly the phases that were cut, and a step reached
# after the deadline is cut, never run with a limit of 0 or less (timeout: no limit, or rc 125).
# The deadline is set on an injected clock (TANDEM_CLOCK), not the wall clock, so the load of
# the machine (a busy 2-core CI runner) cannot move which steps fit.
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
# The clock: 10 s later at every reading, from a fixed start. Readings: the session's start
# (t0), then one per step: the machine phase's step (t0+10, 45 s left: runs), the perf phase's
# first (t0+20, 35 s left: runs, and at 1000 repetitions of CPU timing is killed after its
# 35 real seconds), then the next (t0+30 or later, under 30 s left: not run).
cat >"$tmp/clock" <<CLOCK
#!/usr/bin/env bash
n=\$(cat "$tmp/ticks" 2>/dev/null || echo 0); echo \$((n + 1)) >"$tmp/ticks"; echo \$((1000000 + 10 * n))
CLOCK
chmod +x "$tmp/clock"
export TANDEM_CLOCK=$tmp/clock
OUT=$tmp/call1 GPU_SESSION_BUDGET=55 GPU_VALIDATE_BACKEND=cpu PERF_REPS=1000 "$tmp/repo/ci/gpu_session.sh" machine,perf >"$tmp/log1" 2>&1
rc=$?
steps=$tmp/repo/out/gpu/steps.tsv
check "call 1 packs its results (exit $rc)" '[ -f "$tmp/call1/gpu-results.tar.xz" ] && [ -f "$tmp/call1/summary.md" ]'
check "what call 1 packed would come back" 'python3 "$here/device_limits.py" "$tmp/call1" >/dev/null'
check "the machine phase's step ran" 'grep -qP "^gpu_visible\t(pass|FAIL)\t" "$steps"'
check "the step at the deadline was killed at its limit" 'grep -qP "^perf_cuda_dot\tFAIL\t124\t.*timed out after 35 s" "$steps"'
check "it did not outlive its limit (35 s, 10 s to die)" \
  '[ "$(grep -P "^perf_cuda_dot\t" "$steps" | cut -f4)" -le 50 ]'
check "a step past the deadline is 'not run: out of time'" 'grep -qP "^perf_cuda_lstm\tnot run\t.*\tout of time" "$steps"'
check "the perf phase is noted as cut" 'grep -qx perf "$tmp/repo/out/gpu/phases_cut"'
OUT=$tmp/call2 GPU_SESSION_BUDGET=1 "$tmp/repo/ci/gpu_session.sh" rest >"$tmp/log2" 2>&1
check "rest runs the phases cut or never reached, not the finished ones" \
  'grep -q "^gpu_session: phases .*perf" "$tmp/log2" && ! grep -q "^gpu_session: phases .*machine" "$tmp/log2"'
# A call reaching the ctest phase after its deadline: cut, not `timeout -k 10 -5 ctest` (rc 125).
DEADLINE=$(( $("$tmp/clock") - 5 )) "$tmp/repo/ci/gpu_validate.sh" "$tmp/late" ctest >"$tmp/log3" 2>&1
check "ctest past the deadline is 'not run: out of time'" 'grep -qP "^ctest_gpu\tnot run\t.*\tout of time" "$tmp/late/steps.tsv"'
check "ctest past the deadline notes its phase cut" 'grep -qx ctest "$tmp/late/phases_cut"'
check "no step ran with a bad timeout" '! grep -qP "\t125\t" "$tmp/late/steps.tsv"'
[ $fail = 0 ] || { echo "--- call 1:"; cat "$tmp/log1"; echo "--- call 2:"; cat "$tmp/log2"; echo "--- late:"; cat "$tmp/log3"; }
exit $fail
