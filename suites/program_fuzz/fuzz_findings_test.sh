#!/usr/bin/env bash
# Every case in findings/findings.tsv replays with the outcome the table lists (open
# disagreements stay visible; a fix, or a regression, changes an outcome and fails here).
#   fuzz_findings_test.sh TANDEM FINDINGS_DIR
set -uo pipefail
tandem=$1 dir=$2
fail=0
while IFS=$'\t' read -r file outcome judge what; do
  [[ -z $file || $file == \#* ]] && continue
  "$tandem" fuzz --replay "$dir/$file" > /dev/null 2>&1
  rc=$?
  got=error; [[ $rc == 0 ]] && got=agree; [[ $rc == 1 ]] && got=disagree
  if [[ $got != "$outcome" ]]; then echo "FAIL: $file: $got, the table says $outcome ($what)"; fail=1
  else echo "ok: $file $got"; fi
done < "$dir/findings.tsv"
for f in "$dir"/*.json; do
  grep -q "^$(basename "$f")"$'\t' "$dir/findings.tsv" || { echo "FAIL: $(basename "$f") is not in findings.tsv"; fail=1; }
done
exit $fail
