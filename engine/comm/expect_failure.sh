#!/usr/bin/env bash
# Runs a command that must fail for the stated reason: a non-zero exit AND output matching
# every given pattern (so a crash or a hang for another reason does not count as a pass).
# usage: expect_failure.sh PATTERN [PATTERN...] -- COMMAND [ARGS...]
set -uo pipefail
patterns=()
while [[ $# -gt 0 && $1 != -- ]]; do patterns+=("$1"); shift; done
[[ ${1:-} == -- ]] && shift || { echo "usage: expect_failure.sh PATTERN... -- COMMAND..." >&2; exit 2; }
out=$("$@" 2>&1)
rc=$?
echo "$out"
[[ $rc != 0 ]] || { echo "FAIL: the command exited 0" >&2; exit 1; }
for p in "${patterns[@]}"; do
  grep -qE -- "$p" <<<"$out" || { echo "FAIL: output lacks /$p/" >&2; exit 1; }
done
echo "PASS: failed (exit $rc) for the stated reason"
