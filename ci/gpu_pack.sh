#!/usr/bin/env bash
# Copies what a GPU session has written so far to where the device tool returns it: OUT/gpu-results.tar.xz (all of the
# session's folder: every records.json, the ctest log, each step's log) beside the small files to read first
# (summary.md, steps.tsv, machine.txt, sanitizer.md). ci/gpu_session.sh runs it after every phase, from its watchdog
# shortly before the call's limit, and at the end, so that a call killed at any moment has already left every finished
# phase's results in OUT. Each file is replaced whole or not at all (written beside it, then renamed), and packers take
# turns (flock on WORK/.pack.lock, where flock exists), so a pack cut short leaves the previous one intact.
#   bash ci/gpu_pack.sh WORK OUT
set -uo pipefail
[ $# = 2 ] && [ -d "$1" ] || { echo "usage: bash ci/gpu_pack.sh WORK OUT  (WORK: the session's folder)" >&2; exit 4; }
work=$(cd "$1" && pwd) out=$2
mkdir -p "$out" || exit 4
if command -v flock >/dev/null; then exec 9>"$work/.pack.lock" && flock 9; fi
for f in summary.md steps.tsv machine.txt sanitizer.md; do
  [ ! -f "$work/$f" ] || { cp "$work/$f" "$out/$f.tmp" && mv "$out/$f.tmp" "$out/$f"; }
done
# Python's tarfile, not `tar -J`: the image need not have the xz program (Ubuntu's minbase lacks it).
python3 - "$work" "$out/gpu-results.tar.xz" <<'PY'
import os, sys, tarfile
work, archive = sys.argv[1], sys.argv[2]
skip = lambda info: None if os.path.basename(info.name) in (".pack.lock", ".watchdog_fired") else info
with tarfile.open(archive + ".tmp", "w:xz") as t:
    t.add(work, arcname="gpu", filter=skip)
os.replace(archive + ".tmp", archive)
PY
