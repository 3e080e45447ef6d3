#!/usr/bin/env bash
# Whether the fuzzer catches each engine fault of the fault table (engine/core/faults.h), as
# suites/program_fuzz/fault_catch.tsv says it does (or says why not): seed 2, 3,000 cases, the budget on which the clean
# engine agrees everywhere (fuzz_ci_test.sh). A fault the table calls caught that escapes fails; so does one it calls
# missed that is now caught (update the table), and a fault missing from the table. Every fault in one `tandem fuzz
# --inject-each` run (the cases and their references made once: 35 runs of the same 3,000 cases cost 3.5x the CPU); the
# first caught fault is also run alone with --inject, which must fail at the same case and pass just before it, so the
# shared run's verdicts are held to the per-fault one.
#   fuzz_faults_test.sh TANDEM TABLE
set -uo pipefail
tandem=$1 table=$2
fail=0 caught=0 total=0
faults=()
while IFS=$'\t' read -r fault owner _; do
  [[ $owner == perf || $owner == crash ]] || faults+=("$fault")
done < <("$tandem" faults --list)
(( ${#faults[@]} >= 25 )) || { echo "FAIL: only ${#faults[@]} engine faults listed"; exit 1; }
out=$("$tandem" fuzz --programs 3000 --seed 2 --inject-each "$(IFS=,; echo "${faults[*]}")" 2>&1)
rc=$?
[[ $rc == 0 || $rc == 1 ]] || { echo "FAIL: tandem fuzz --inject-each exited $rc: $(tail -c 600 <<<"$out")"; exit 1; }
for fault in "${faults[@]}"; do
  total=$((total + 1))
  row=$(awk -F'\t' -v f="$fault" '$1 == f' "$table")
  if [[ -z $row ]]; then echo "FAIL: $fault is not in $table"; fail=1; continue; fi
  expected=$(cut -f2 <<<"$row")
  got="no verdict"
  grep -q "^caught $fault at case " <<<"$out" && got=caught && caught=$((caught + 1))
  grep -q "^missed $fault in 3000 cases$" <<<"$out" && got=missed
  if [[ $got != "$expected" ]]; then echo "FAIL: $fault: $got, the table says $expected"; fail=1; else echo "ok: $fault $got"; fi
done
first=$(grep -m1 "^caught " <<<"$out")
if [[ -n $first ]]; then  # the shared run's first catch, against the fault run alone
  read -r _ fault _ _ index _ <<<"$first"
  "$tandem" fuzz --programs $((index + 1)) --seed 2 --max-failures 1 --inject "$fault" > /dev/null 2>&1
  rc_at=$?
  rc_before=0
  (( index == 0 )) || { "$tandem" fuzz --programs "$index" --seed 2 --inject "$fault" > /dev/null 2>&1; rc_before=$?; }
  if [[ $rc_at == 1 && $rc_before == 0 ]]; then echo "ok: $fault alone fails at case $index, not before"
  else echo "FAIL: $fault alone: exit $rc_at with case $index, $rc_before before it (want 1, 0)"; fail=1; fi
fi
echo "fuzzer caught $caught of $total engine faults (seed 2, 3000 cases)"
exit $fail
