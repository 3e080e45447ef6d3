#!/usr/bin/env bash
# ci/quick_run.sh, the main job's run step, on a few cases: the collectives cases are recorded once each, at 4 ranks;
# the summary counts them; the busbw sweep is merged in; report, gate and history accept the merged records and the
# report draws every promised plot; a case in two parts is refused (exit 4); without mpirun the job says in one line
# that it ran at 1 rank. usage: quick_run_test.sh TANDEM
set -uo pipefail
tandem=${1:?usage: quick_run_test.sh TANDEM}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
pick=(--filter '^(collectives/op:(psum|all_gather)/dtype:f32/|vmap/mlp/)' -n 2)

TANDEM=$tandem "$here/quick_run.sh" "$work/q" "${pick[@]}" >"$work/q.log" 2>&1 || { cat "$work/q.log"; fail "quick_run.sh exited $?"; }
python3 - "$work/q" <<'EOF' || fail "merged records"
import json, re, sys
recs = json.load(open(sys.argv[1] + "/records.json"))["records"]
cases = [r for r in recs if r["suite"] == "collectives" and "/sweep/" not in r["case"]]
keys = [re.sub(r"/ranks:\d+$", "", r["case"]) for r in recs]
assert len(keys) == len(set(keys)), "a case recorded twice"
assert len(cases) == 8 and all(r["context"]["ranks"] == 4 and "multi_rank" in r for r in cases), [r["case"] for r in cases]
assert sum(r["verdict"] == "pass" for r in cases) == 7, [(r["case"], r["message"]) for r in cases]  # all_gather: no uneven
assert any("/sweep/" in r["case"] for r in recs) and any(r["suite"] == "vmap" for r in recs)
assert "8 cases ran at 4 ranks: 7 passed, 0 failed, 1 skipped, 0 errors." in open(sys.argv[1] + "/summary.md").read()
EOF
# A log, not a terminal: a line per suite, none per passing case, and no per-case summary table.
grep -q '^vmap: [0-9]* cases, [0-9]* passed' "$work/q.log" || fail "no per-suite line in the log"
! grep -qE '^\[[0-9]+/[0-9]+ .*\] .* pass' "$work/q.log" || fail "a line per passing case in the log"
! grep -q '^| vmap/mlp/' "$work/q.log" || fail "the summary's per-case rows in the log"
grep -q '^[0-9]* passed, 0 failed' "$work/q.log" || fail "no counts in the log"
[ -f "$work/q/report/index.html" ] || fail "quick_run.sh drew no report"
! grep -l "not drawn" "$work/q/report/index.html" "$work/q/report/summary.md" || fail "the report has a promised plot not drawn"
ls "$work/q/report"/collectives_busbw_*.png >/dev/null || fail "no busbw plot"
"$tandem" gate --current "$work/q/records.json" --baseline "$work/q/records.json" >/dev/null
(( $? == 0 || $? == 3 )) || fail "gate refused the merged records"
"$tandem" history add "$work/q/records.json" --db "$work/h.sqlite" >/dev/null || fail "history refused the merged records"
# The same case at 1 rank and at 4 ranks, or twice, is refused.
"$tandem" run --suite collectives --filter 'op:psum/dtype:f32/groups:all' -q --out "$work/one" >/dev/null 2>&1
"$tandem" merge "$work/one" "$work/q/parts/np4" -o "$work/dup" 2>"$work/dup.err"
(( $? == 4 )) && grep -q "is also in" "$work/dup.err" || fail "merge accepted a case at 1 and at 4 ranks"
# No mpirun: one process, said in one line.
TANDEM=$tandem TANDEM_MPIRUN=/nonexistent/mpirun "$here/quick_run.sh" "$work/nompi" "${pick[@]}" >/dev/null 2>"$work/nompi.err" ||
  fail "without mpirun: exit $?"
grep -q "^note: no mpirun: the collectives suite ran at 1 rank" "$work/nompi.err" || fail "without mpirun: no note"
echo "quick_run: ok"
