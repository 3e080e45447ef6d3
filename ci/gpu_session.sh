#!/usr/bin/env bash
# One call of a GPU session on the device tool (docs/GPU_VALIDATION.md has the calls in order): runs ci/gpu_validate.sh
# into out/gpu (ignored; it survives between calls while the machine stays warm) under a deadline that leaves time to
# pack, and keeps $OUT holding what the device tool returns at every moment: after every phase and at the end
# ci/gpu_pack.sh copies gpu-results.tar.xz (all of out/gpu) beside summary.md, steps.tsv and machine.txt, and a watchdog
# packs what exists shortly before the call's limit if the run has not ended by then (and stops it, its phase noted as
# cut). The end checks $OUT with ci/device_limits.py.
#   bash ci/gpu_session.sh first       every phase (ci/gpu_plan.tsv's order); what does not
#                                      fit is "not run: out of time"
#   bash ci/gpu_session.sh rest        the phases the last call cut or never reached
#   bash ci/gpu_session.sh PHASES      these phases (comma-separated)
# Environment: OUT (default out/gpu-call); GPU_CALL_LIMIT (the call's timeout_s, default 540: the first call of
# docs/GPU_VALIDATION.md's plan); GPU_SESSION_BUDGET (s for gpu_validate, default GPU_CALL_LIMIT - 40: the last pack and
# the margin); GPU_WATCHDOG_MARGIN (s before the call's limit at which the watchdog packs, default 20;
# GPU_WATCHDOG_POLL, its period, 2 s); TANDEM_CLOCK (a command printing epoch seconds, for tests) and gpu_validate.sh's
# own. Exit: gpu_validate's (1 when a step failed; 3 when the watchdog stopped it); 6 when the last pack failed or would
# not come back whole.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/out/gpu
dest=${OUT:-$root/out/gpu-call}
[ $# = 1 ] || { echo "usage: bash ci/gpu_session.sh first|rest|PHASES" >&2; exit 4; }
all=$(bash "$root/ci/gpu_validate.sh" --phases)
out=$work
. "$root/ci/gpu_steps.sh"  # now_s, record, write_summary: the same clock and rows as gpu_validate
limit=${GPU_CALL_LIMIT:-540}
start=$(now_s)
real_start=$(date +%s)
export DEADLINE=$((start + ${GPU_SESSION_BUDGET:-$((limit - 40))}))
watchdog_at=$((start + limit - ${GPU_WATCHDOG_MARGIN:-20}))

# The phases of `rest`: from the first phase the last call cut (or no call started) to the end,
# since each phase uses what the ones before it made (a cut build leaves nothing to test).
rest_phases() {
  local p started cut list=""
  started=$(sort -u "$work/phases_started" 2>/dev/null)
  cut=$(sort -u "$work/phases_cut" 2>/dev/null)
  for p in ${all//,/ }; do
    if [ -n "$list" ] || grep -qx "$p" <<<"$cut" || ! grep -qx "$p" <<<"$started"; then list+=${list:+,}$p; fi
  done
  echo "$list"
}
pack() { bash "$root/ci/gpu_pack.sh" "$work" "$dest"; }
# Every process under PID, deepest first (a step's `timeout` runs in a process group of its own).
tree_of() { local c; for c in $(pgrep -P "$1"); do tree_of "$c"; done; echo "$1"; }
# The watchdog: until the call's limit is GPU_WATCHDOG_MARGIN s away, nothing; then, if the run
# still goes, it stops it, notes the phase it was in as cut, and packs what exists.
watchdog() {
  local vpid=$1 pids phase
  while [ "$(now_s)" -lt "$watchdog_at" ]; do
    kill -0 "$vpid" 2>/dev/null || return 0
    sleep "${GPU_WATCHDOG_POLL:-2}"
  done
  kill -0 "$vpid" 2>/dev/null || return 0
  touch "$work/.watchdog_fired"  # the session then waits for this pack instead of stopping it
  pids=$(tree_of "$vpid")
  kill -TERM $pids 2>/dev/null; sleep 2; kill -KILL $pids 2>/dev/null
  phase=$(tail -1 "$work/phases_started" 2>/dev/null)
  current_phase=${phase:-machine}
  cut_phase
  record watchdog FAIL - 0 "the call's limit was ${GPU_WATCHDOG_MARGIN:-20} s away in phase ${phase:-none}: the run was stopped and what existed packed"
  write_summary
  pack
}

case $1 in
  first) phases=$all; rm -rf "$work" ;;
  rest) phases=$(rest_phases); [ -n "$phases" ] || { echo "gpu_session: every phase already ran"; phases=machine; } ;;
  *) phases=$1 ;;
esac
mkdir -p "$work/logs" "$dest"
touch "$work/steps.tsv"
rm -f "$work/phases_cut" "$work/.watchdog_fired"  # this call's cuts only
echo "gpu_session: phases $phases; deadline in $((DEADLINE - start)) s, watchdog in $((watchdog_at - start)) s"
[ "$DEADLINE" -lt "$watchdog_at" ] || echo "gpu_session: WARNING: the deadline falls after the watchdog: set GPU_CALL_LIMIT to the call's timeout_s" >&2
export GPU_AFTER_PHASE="bash '$root/ci/gpu_pack.sh' '$work' '$dest'"
bash "$root/ci/gpu_validate.sh" "$work" "$phases" &
vpid=$!
watchdog "$vpid" &
wpid=$!
wait "$vpid"
rc=$?
wait "$wpid"  # it returns within a poll of the run's end (killed, it would orphan its clock call or cut its pack)
[ ! -f "$work/.watchdog_fired" ] || rc=3

pack_rc=0; pack || pack_rc=$?
echo "gpu_session: packed in $(( $(date +%s) - real_start )) s into $dest:"
if [ $pack_rc != 0 ] || ! python3 "$root/ci/device_limits.py" "$dest"; then
  [ $pack_rc = 0 ] || echo "error: the last pack failed (exit $pack_rc): gpu-results.tar.xz is not this call's" >&2
  echo "error: the results would not all come back from the device" >&2
  echo "  hint: see the reasons above; out/gpu on the machine still holds everything while it is warm" >&2
  exit 6
fi
exit $rc
