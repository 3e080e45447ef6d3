#!/usr/bin/env bash
# The quick profile of every suite into OUT (ci/quickstart.sh's run step). With mpirun: every suite but collectives in
# one process, the collectives suite at 4 ranks (its group layouts need 2-4; runners/launch/mpirun.sh, --oversubscribe)
# and a short busbw sweep (`tandem collectives`), each into OUT/parts/, then `tandem merge` writes OUT/{records.json,
# benchmark.json,summary.md}, and the report is drawn into OUT/report/. Without mpirun: one process, and one line saying
# so.
# usage: ci/quick_run.sh OUT [tandem run args...]  (the args, e.g. -n 3 or --filter RE but not
# --suite, go to each `tandem run`; TANDEM: the binary)
# Exit: the highest code of the steps (0 pass, 1 correctness, 4 bad input, 5 infrastructure,
# 6 a promised plot not drawn although MPI ran).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export TANDEM=${TANDEM:-${BUILD_DIR:-$root/build}/tandem}
out=${1:?usage: quick_run.sh OUT [tandem run args...]}; shift
run=(run --profile quick --backend auto)
parts=$out/parts rc=0
rm -rf "$parts" "$out/records.json" "$out/summary.md" "$out/benchmark.json" "$out/report"  # nothing stale survives a failed step
# The report of the run, OUT/report/: a promised plot it cannot draw is said; with MPI, where
# every suite's plots have their data, it is an incomplete run (6).
report() {  # MPI_RAN
  "$TANDEM" report "$out/records.json" -o "$out/report" >/dev/null || { (( rc < 5 )) && rc=5; return; }
  grep -q "Promised plots not drawn" "$out/report/summary.md" || return 0
  sed -n '/Promised plots not drawn/,/^$/p' "$out/report/summary.md" >&2
  if [ "$1" = 1 ]; then echo "error: the main job's report misses promised plots" >&2; (( rc < 6 )) && rc=6; fi
}
if ! command -v "${TANDEM_MPIRUN:-mpirun}" >/dev/null; then
  "$TANDEM" "${run[@]}" --out "$out" "$@" || rc=$?
  report 0
  echo "note: no mpirun: the collectives suite ran at 1 rank, where its pairs/interleaved/uneven cases skip (they need 2-4 ranks); install Open MPI for the 4-rank run" >&2
  exit "$rc"
fi
step() { local log=$1; shift; "$@" >"$parts/$log.log" || { local c=$?; (( c > rc )) && rc=$c; echo "$log: exit $c ($parts/$log.log)" >&2; }; }
mkdir -p "$parts"
step np1 "$TANDEM" "${run[@]}" --exclude-suite collectives --out "$parts/np1" "$@"
step np4 "$root/runners/launch/mpirun.sh" 4 "${run[@]}" --suite collectives --out "$parts/np4" "$@"
step sweep "$root/runners/launch/mpirun.sh" 4 collectives -b 1K -e 1M --ops psum,all_gather --interleave 1 --out "$parts/sweep"  # ~3 s
step merge "$TANDEM" merge "$parts/np1" "$parts/np4" "$parts/sweep" -o "$out"
# The summary's counts, ranks and parts, then only the rows of failing cases: the whole table
# (a row per case) stays in summary.md.
if [ -f "$out/summary.md" ]; then
  sed '/^| case | verdict /,$d' "$out/summary.md"
  failing=$(grep -E '^\| [^|]+ \| (fail|error) \|' "$out/summary.md" | head -40 || true)
  [ -z "$failing" ] || printf '%s\n' "| failing case | verdict | err/tol | median | GFLOP/s | note |" "|---|---|---|---|---|---|" "$failing"
fi
report 1
echo "records: $out/records.json  summary: $out/summary.md  report: $out/report/index.html (parts and their logs: $parts)" >&2
exit "$rc"
