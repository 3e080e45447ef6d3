#!/usr/bin/env bash
# ci/gpu_session.sh returns everything it can from a device call, whenever the call ends:
#  - a deadline falling inside each phase in turn: every earlier phase's rows, records and logs
#    come back in $OUT, the phase's first step runs, every later step or phase is "not run: out of time";
#  - $OUT holds every earlier phase's rows as each phase starts (copied after each phase, not
#    only at the end), and still does after a SIGKILL (as the device tool kills at its limit);
#  - a step hanging near the call's limit: the watchdog stops the run and packs (exit 3);
#  - a step, a program or a shell function alike, is killed at its limit, never given a
#    limit of 0 or less; `rest` runs the phases cut; a failed last pack is exit 6.
# Every tool the phases call is a stand-in (cmake, ctest, mpirun, nvidia-smi, ldd, compute-sanitizer, the tandem
# binary), so one call takes a few seconds, and the deadline is set on an injected clock (TANDEM_CLOCK) driven by what
# the run has done, not by the wall clock: the machine's load cannot move which steps fit.
#   ci/gpu_session_test.sh [BUILD_DIR]     (unused: kept for ctest's call)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
repo=$tmp/repo work=$tmp/repo/out/gpu fake=$tmp/build base=1000000
mkdir -p "$repo/runners" "$repo/examples/exported/prog" "$tmp/bin" "$fake/engine/comm" "$fake/tools"
cp -r "$here" "$repo/ci" && cp -r "$here/../runners/launch" "$repo/runners/"
printf '#!/usr/bin/env bash\necho "stand-in machine facts"\n' >"$repo/ci/gpu_machine_facts.sh"
. "$here/gpu_session_test_stubs.sh"  # writes the stand-ins into $tmp/bin and $fake
export PATH=$tmp/bin:$PATH BUILD_DIR=$fake TANDEM_OFFLINE_PREFIX=/nonexistent GPU_VALIDATE_BACKEND=cpu \
  TANDEM_CLOCK=$tmp/bin/clock STUB_LOG=$tmp/calls STUB_STATE=$tmp/state GPU_WATCHDOG_POLL=0.1
phases=$(bash "$repo/ci/gpu_validate.sh" --phases | tr , ' ')
check "the plan lists the phases ($(wc -w <<<"$phases"))" '[ "$(wc -w <<<"$phases")" -ge 10 ]'
[ -z "${ONLY_PHASE:-}" ] || phases=$ONLY_PHASE  # one phase's cases, when iterating on this test

# session MODE PHASE [ENV...]: a `first` call whose clock cuts (MODE=cut) or kills (MODE=kill)
# when PHASE starts; the rows it returned in $OUT end up in $tmp/rows.
session() {
  local mode=$1 phase=$2; shift 2
  rm -rf "$repo/out" "$tmp/state" "$tmp/out" && mkdir -p "$tmp/state"
  echo "$phase" >"$tmp/state/$mode"
  env "$@" OUT="$tmp/out" GPU_CALL_LIMIT=1000 GPU_SESSION_BUDGET=100 bash "$repo/ci/gpu_session.sh" first >"$tmp/log" 2>&1 &
  echo $! >"$tmp/state/session.pid"
  wait $! 2>/dev/null
  rc=$?
  cp "$tmp/out/steps.tsv" "$tmp/rows" 2>/dev/null || : >"$tmp/rows"
}
# The rows of PHASE in FILE (default $tmp/rows); how many of them are out of time.
rows_of() { awk -F'\t' -v p="$1" '$6 == p' "${2:-$tmp/rows}"; }
cut_rows() { rows_of "$1" | grep -c "out of time"; }

# What a phase leaves in the archive besides its rows: its records and logs.
declare -A holds=([machine]=gpu/machine.txt [ctest]=gpu/ctest_gpu.log [quick]=gpu/quick_cuda/dot/records.json
  [programs]=gpu/program/prog/records.json [perf]=gpu/perf/lstm/records.json)
before=()
for p in $phases; do
  session cut "$p"
  ok=1
  packed=$(tar -tJf "$tmp/out/gpu-results.tar.xz" 2>/dev/null)
  for q in "${before[@]}"; do
    [ -n "$(rows_of "$q")" ] && [ "$(cut_rows "$q")" = 0 ] || { ok=0; echo "  phase $q: $(rows_of "$q" | cut -f1,2,5 | tr '\n' ';')"; }
    [ -z "${holds[$q]:-}" ] || grep -qx "${holds[$q]}" <<<"$packed" || { ok=0; echo "  phase $q: the archive lacks ${holds[$q]}"; }
  done
  first_row=$(rows_of "$p" | head -1)
  [ -n "$first_row" ] && ! grep -q "out of time" <<<"$first_row" || { ok=0; echo "  phase $p's first step: $first_row"; }
  after=0
  for q in $phases; do
    [ "$after" = 1 ] && [ "$(rows_of "$q" | grep -vc "out of time")" != 0 ] && { ok=0; echo "  later phase $q ran"; }
    [ "$q" = "$p" ] && after=1
  done
  check "deadline inside $p: ${#before[@]} earlier phases returned (rows, records), its first step ran, the rest out of time" '[ $ok = 1 ]'
  [ $ok = 1 ] || cat "$tmp/log"
  before+=("$p")
done
# The last call ran every phase: as each started, $OUT already held every earlier one.
check "what came back fits the device tool" 'python3 "$here/device_limits.py" "$tmp/out" >/dev/null'
ok=1 seen=()
for p in $phases; do
  for q in "${seen[@]}"; do [ -n "$(rows_of "$q" "$tmp/state/snap_$p")" ] || { ok=0; echo "  as $p started, \$OUT lacked $q"; }; done
  seen+=("$p")
done
check "as each of the ${#seen[@]} phases started, \$OUT held every earlier phase's rows" '[ $ok = 1 ]'
# The call killed (SIGKILL, nothing after it runs) as the quick phase starts.
session kill quick
tar -xJf "$tmp/out/gpu-results.tar.xz" -C "$tmp/out" gpu/steps.tsv 2>/dev/null
check "killed as quick starts (rc $rc): \$OUT holds the build and ctest rows, and so does its archive" \
  '[ $rc = 137 ] && [ -n "$(rows_of ctest)" ] && [ -n "$(rows_of build "$tmp/out/gpu/steps.tsv")" ]'

# The watchdog: a quick step hangs, the clock passes the call's limit less its margin.
session watchdog quick STUB_HANG='^tandem run .*--suite dot'
check "the watchdog stopped a hung run near the call's limit (exit $rc, want 3)" '[ $rc = 3 ]'
check "its row and the earlier phases came back" 'grep -qP "^watchdog\tFAIL\t.*phase quick" "$tmp/rows" && [ -n "$(rows_of build)" ]'
check "the hung step is gone" '! kill -0 "$(cat "$tmp/state/hung.pid")" 2>/dev/null'
check "quick is noted cut, for rest" 'grep -qx quick "$work/phases_cut"'
OUT=$tmp/out2 GPU_CALL_LIMIT=1000 bash "$repo/ci/gpu_session.sh" rest >"$tmp/log2" 2>&1
check "rest runs from the cut phase on, not the finished ones" \
  'grep -q "^gpu_session: phases quick,programs" "$tmp/log2" && ! grep -q "^gpu_session: phases .*build" "$tmp/log2"'

# A step at the deadline is killed at its limit, a program (perf) and a shell function (ldd
# inside gpu_libraries) alike; the next step, past the deadline, never starts.
for case in "perf perf_cuda_dot ^tandem.run.*--suite.dot" "cpu gpu_libraries ^ldd"; do
  set -- $case
  rm -rf "$tmp/state" "$tmp/v" && mkdir -p "$tmp/state"
  name=$2
  STUB_HANG=$3 GPU_STEP_MIN_S=1 DEADLINE=$((base + 2)) bash "$repo/ci/gpu_validate.sh" "$tmp/v" "$1" >"$tmp/log3" 2>&1
  check "$name killed at its 2 s limit" 'grep -qP "^$name\tFAIL\t124\t.*timed out after 2 s" "$tmp/v/steps.tsv"'
  [ "$1" = perf ] && check "the step after it is out of time" 'grep -qP "^perf_cuda_lstm\tnot run\t.*out of time" "$tmp/v/steps.tsv"'
done
# A phase reached after its deadline: one row "not run: out of time", never `timeout` with a
# limit of 0 or less (no limit, or rc 125).
rm -rf "$tmp/state" && mkdir -p "$tmp/state"
DEADLINE=$((base - 5)) bash "$repo/ci/gpu_validate.sh" "$tmp/late" ctest >"$tmp/log4" 2>&1
check "ctest past the deadline is 'not run: out of time', its phase cut" \
  'grep -qP "^ctest\tnot run\t.*\tout of time" "$tmp/late/steps.tsv" && grep -qx ctest "$tmp/late/phases_cut"'
check "no step ran with a bad timeout" '! grep -qP "\t125\t" "$tmp/late/steps.tsv"'
# The last pack failing (its archive's temporary name taken by a folder) is exit 6, not the run's.
rm -rf "$tmp/state" && mkdir -p "$tmp/state" "$tmp/bad/gpu-results.tar.xz.tmp"
OUT=$tmp/bad GPU_CALL_LIMIT=1000 bash "$repo/ci/gpu_session.sh" machine >"$tmp/log5" 2>&1
rc=$?
check "a failed last pack is exit 6 (got $rc)" '[ $rc = 6 ] && grep -q "the last pack failed" "$tmp/log5"'
exit $fail
