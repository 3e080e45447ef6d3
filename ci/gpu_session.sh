#!/usr/bin/env bash
# One call of a GPU session on the device tool (docs/GPU_VALIDATION.md has the calls in order):
# runs ci/gpu_validate.sh into out/gpu (ignored; it survives between calls while the machine
# stays warm) under a deadline that leaves time to pack, then packs the results into $OUT as
# the device tool returns them: gpu-results.tar.xz (all of out/gpu: every records.json, the
# ctest log, each step's log) beside summary.md, steps.tsv and machine.txt, checked against
# the tool's limits (ci/device_limits.py).
#   ci/gpu_session.sh first       every phase; what does not fit is "not run: out of time"
#   ci/gpu_session.sh rest        the phases the last call cut or never reached
#   ci/gpu_session.sh PHASES      these phases (ci/gpu_validate.sh's names, comma-separated)
# Environment: OUT (default out/gpu-call), GPU_SESSION_BUDGET (s for gpu_validate, default
# 520: a 600 s command less packing and margin), and gpu_validate.sh's own (TANDEM_CLOCK).
# Exit: gpu_validate's (1 when a step failed); 6 when the pack would not come back whole.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/out/gpu
dest=${OUT:-$root/out/gpu-call}
all=machine,bundle,configure,build,cpu,ctest,quick,nccl,perf,torch
[ $# = 1 ] || { echo "usage: ci/gpu_session.sh first|rest|PHASES" >&2; exit 4; }
# The deadline from TANDEM_CLOCK's time when set (ci/gpu_validate.sh reads the same clock).
start=$(if [ -n "${TANDEM_CLOCK:-}" ]; then $TANDEM_CLOCK; else date +%s; fi)
real_start=$(date +%s)
export DEADLINE=$((start + ${GPU_SESSION_BUDGET:-520}))

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
case $1 in
  first) phases=$all; rm -rf "$work" ;;
  rest) phases=$(rest_phases); [ -n "$phases" ] || { echo "gpu_session: every phase already ran"; phases=machine; } ;;
  *) phases=$1 ;;
esac
mkdir -p "$work"
rm -f "$work/phases_cut"  # this call's cuts only
echo "gpu_session: phases $phases, deadline in $((DEADLINE - start)) s"
"$root/ci/gpu_validate.sh" "$work" "$phases"
rc=$?

# Pack: one archive plus the three small files to read first, nothing deeper than $OUT.
mkdir -p "$dest"
python3 - "$work" "$dest/gpu-results.tar.xz" <<'PY'
import os, sys, tarfile
src, archive = sys.argv[1], sys.argv[2]
with tarfile.open(archive + ".tmp", "w:xz") as t:
    t.add(src, arcname="gpu")
os.replace(archive + ".tmp", archive)  # whole or not at all
PY
for f in summary.md steps.tsv machine.txt; do [ ! -f "$work/$f" ] || cp "$work/$f" "$dest/"; done
echo "gpu_session: packed in $(( $(date +%s) - real_start )) s into $dest:"
if ! python3 "$root/ci/device_limits.py" "$dest"; then
  echo "error: the results would not all come back from the device" >&2
  echo "  hint: see the reasons above; out/gpu on the machine still holds everything while it is warm" >&2
  exit 6
fi
exit $rc
