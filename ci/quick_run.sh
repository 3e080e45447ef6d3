#!/usr/bin/env bash
# The quick profile of every suite into OUT (ci/quickstart.sh's run step). With mpirun: every
# suite but collectives in one process, the collectives suite at 4 ranks (its group layouts
# need 2-4; runners/launch/mpirun.sh, --oversubscribe) and a short busbw sweep (`tandem
# collectives`), each into OUT/parts/, then `tandem merge` writes OUT/{records.json,
# benchmark.json,summary.md}. Without mpirun: one process, and one line saying so.
# usage: ci/quick_run.sh OUT [tandem run args...]  (the args, e.g. -n 3 or --filter RE but not
# --suite, go to each `tandem run`; TANDEM: the binary)
# Exit: the highest code of the steps (0 pass, 1 correctness, 4 bad input, 5 infrastructure).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export TANDEM=${TANDEM:-${BUILD_DIR:-$root/build}/tandem}
out=${1:?usage: quick_run.sh OUT [tandem run args...]}; shift
run=(run --profile quick --backend auto)
parts=$out/parts rc=0
rm -rf "$parts" "$out/records.json" "$out/summary.md" "$out/benchmark.json"  # nothing stale survives a failed step
if ! command -v "${TANDEM_MPIRUN:-mpirun}" >/dev/null; then
  "$TANDEM" "${run[@]}" --out "$out" "$@" || rc=$?
  echo "note: no mpirun: the collectives suite ran at 1 rank, where its pairs/interleaved/uneven cases skip (they need 2-4 ranks); install Open MPI for the 4-rank run" >&2
  exit "$rc"
fi
step() { local log=$1; shift; "$@" >"$parts/$log.log" || { local c=$?; (( c > rc )) && rc=$c; echo "$log: exit $c ($parts/$log.log)" >&2; }; }
mkdir -p "$parts"
step np1 "$TANDEM" "${run[@]}" --exclude-suite collectives --out "$parts/np1" "$@"
step np4 "$root/runners/launch/mpirun.sh" 4 "${run[@]}" --suite collectives --out "$parts/np4" "$@"
step sweep "$root/runners/launch/mpirun.sh" 4 collectives -b 1K -e 1M --ops psum,all_gather --interleave 1 --out "$parts/sweep"  # ~3 s
step merge "$TANDEM" merge "$parts/np1" "$parts/np4" "$parts/sweep" -o "$out"
cat "$out/summary.md" 2>/dev/null
echo "records: $out/records.json  summary: $out/summary.md  (parts and their logs: $parts)" >&2
exit "$rc"
