# Stand-ins for every tool a GPU session's phases call (sourced by ci/gpu_session_test.sh, which sets tmp, fake, repo,
# work and base): each logs its call, hangs when STUB_HANG (a regex) matches "name args" (its pid in
# $STUB_STATE/hung.pid), and otherwise answers as the tool would on a machine without a GPU, at once. The clock
# (TANDEM_CLOCK) answers from what the run has done: STUB_STATE/cut names a phase inside which the deadline falls (40 s
# left until its first step is recorded, then none), STUB_STATE/kill one at whose start the whole call is killed, as the
# device tool kills at its limit; after a hang (or a step killed at its limit) the time is past the watchdog's. As each
# phase starts, it keeps what $OUT's steps.tsv held then (STUB_STATE/snap_<phase>).
preamble='#!/usr/bin/env bash
name=$(basename "$0"); echo "$name $*" >>"$STUB_LOG"
if [ -n "${STUB_HANG:-}" ] && grep -qE "$STUB_HANG" <<<"$name $*"; then echo $$ >"$STUB_STATE/hung.pid"; exec sleep 300; fi'
stub() { printf '%s\n%s\n' "$preamble" "$2" >"$1" && chmod +x "$1"; }

stub "$tmp/bin/cmake" 'exit 0'
stub "$tmp/bin/nvidia-smi" 'echo "NVIDIA-SMI has failed: no GPU here (stand-in)" >&2; exit 9'
stub "$tmp/bin/ldd" 'echo "not a dynamic executable"; exit 1'
stub "$tmp/bin/mpirun" 'shift 2; exec "$@"'
stub "$tmp/bin/ctest" "case \" \$* \" in
  *--show-only=json-v1*) echo '{\"tests\": [{\"name\": \"Lstm.Fwd\", \"command\": [\"$fake/engine/comm/comm_mpi_test\", \"--gtest_filter=Lstm.Fwd\"]}]}' ;;
  *) echo '[  PASSED  ] 1 test.'; echo '100% tests passed, 0 tests failed out of 1' ;;
esac"
stub "$tmp/bin/compute-sanitizer" 'while [ $# -gt 0 ]; do [ "$1" = --log-file ] && echo "========= ERROR SUMMARY: 0 errors" >"$2"; shift; done'
stub "$fake/engine/comm/comm_mpi_test" 'echo "[  PASSED  ] 1 test."'
stub "$fake/tandem" 'case $1 in
  list) printf "dot/a\nlstm/b\n" ;;
  run|check)
    while [ $# -gt 0 ]; do [ "$1" = --out ] && dir=$2; shift; done
    mkdir -p "$dir" && echo "{\"records\": [{\"case\": \"x/a/cpu\", \"backend\": \"cpu\", \"verdict\": \"pass\", \"message\": \"\", \"context\": {}}]}" >"$dir/records.json" ;;
esac'
stub "$tmp/bin/clock" "s=\$STUB_STATE w=$work base=$base
started() { [ -f \"\$s/\$1\" ] && grep -qx \"\$(cat \"\$s/\$1\")\" \"\$w/phases_started\" 2>/dev/null; }
tree_of() { local c; for c in \$(pgrep -P \"\$1\"); do tree_of \"\$c\"; done; echo \"\$1\"; }
cur=\$(tail -1 \"\$w/phases_started\" 2>/dev/null)  # what \$OUT held as this phase started
[ -z \"\$cur\" ] || [ -f \"\$s/snap_\$cur\" ] || { cp \"\${OUT:-/none}/steps.tsv\" \"\$s/.snap\$\$\" 2>/dev/null || : >\"\$s/.snap\$\$\"
  ln \"\$s/.snap\$\$\" \"\$s/snap_\$cur\" 2>/dev/null; rm -f \"\$s/.snap\$\$\"; }  # aside, then linked: 2 calls at once broke cp
# past every deadline once a step hung or was killed at its limit (it used up its time), whoever asks and when
if [ -f \"\$s/hung.pid\" ] || grep -qs 'timed out' \"\${out:-\$w}/steps.tsv\"; then echo \$((base + 990)); exit 0; fi
if started kill; then kill -KILL \$(tree_of \"\$(cat \"\$s/session.pid\")\" | grep -vx \$\$); kill -KILL \$\$; fi
# from the rows alone (no state a late caller could write): 40 s left until the cut phase has a row, then none
if started cut; then awk -F'\\t' -v p=\"\$(cat \"\$s/cut\")\" -v b=\$base '\$6 == p {n++} END {print b + (n ? 100 : 60)}' \"\$w/steps.tsv\"; exit 0; fi
echo \$base"
