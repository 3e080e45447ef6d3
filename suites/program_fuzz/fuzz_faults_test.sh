#!/usr/bin/env bash
# Whether the fuzzer catches each engine fault of the fault table (engine/core/faults.h), as
# suites/program_fuzz/fault_catch.tsv says it does (or says why not): seed 2, 3,000 cases,
# the budget on which the clean engine agrees everywhere (fuzz_ci_test.sh). A fault the table
# calls caught that escapes fails; so does one it calls missed that is now caught (update the
# table), and a fault missing from the table.
#   fuzz_faults_test.sh TANDEM TABLE
set -uo pipefail
tandem=$1 table=$2
fail=0 caught=0 total=0
while IFS=$'\t' read -r fault owner _; do
  [[ $owner == perf || $owner == crash ]] && continue
  total=$((total + 1))
  row=$(awk -F'\t' -v f="$fault" '$1 == f' "$table")
  if [[ -z $row ]]; then echo "FAIL: $fault is not in $table"; fail=1; continue; fi
  expected=$(cut -f2 <<<"$row")
  "$tandem" fuzz --programs 3000 --seed 2 --max-failures 1 --inject "$fault" > /dev/null 2>&1
  rc=$?
  got=missed; [[ $rc == 1 ]] && got=caught && caught=$((caught + 1))
  [[ $rc != 0 && $rc != 1 ]] && got="exit $rc"
  if [[ $got != "$expected" ]]; then echo "FAIL: $fault: $got, the table says $expected"; fail=1; else echo "ok: $fault $got"; fi
done < <("$tandem" faults --list)
echo "fuzzer caught $caught of $total engine faults (seed 2, 3000 cases)"
exit $fail
