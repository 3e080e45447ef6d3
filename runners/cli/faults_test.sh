#!/usr/bin/env bash
# ctest `faults` (label faults): the fault registry's contract — --list, unknown names are bad
# input (exit 4) through --inject and TANDEM_INJECT, an injected run is marked in its records —
# then `tandem faults` on a bounded subset (FAULTS regex, one fault per suite): every one must
# be caught by its owning suite, so CI notices when a suite loses its power to catch a bug.
#   faults_test.sh TANDEM [FAULTS_REGEX]
set -uo pipefail
tandem=$1
subset=${2:-'^(dot_x3_single_pass|lstm_gates_f_g_swapped|coll_pmean_divides_by_world|remat_policy_saves_everything|hoist_drops_final_scaling|vmap_ragged_offset_off_by_one)$'}
# Without MPI the collectives suite is not built: its fault leaves the subset.
"$tandem" list --suite collectives >/dev/null 2>&1 || subset=${subset/|coll_pmean_divides_by_world/}
. "$(dirname "$0")/../expect_exit.sh"  # $out, $fail, expect CODE DESCRIPTION -- COMMAND...
expect 0 "faults --list" -- "$tandem" faults --list
n=$(wc -l <"$out/stdout")
[ "$n" -ge 25 ] || { echo "FAIL: only $n faults listed, want >= 25"; fail=1; }
for s in dot lstm collectives remat scan_hoist vmap; do
  grep -qP "\t$s\t" "$out/stdout" || { echo "FAIL: no fault owned by $s"; fail=1; }
done
expect 4 "--inject with an unknown fault" -- "$tandem" check --suite dot --inject no_such_fault --out "$out/x"
grep -q 'tandem faults --list' "$out/stderr" || { echo "FAIL: no hint naming tandem faults --list"; fail=1; }
expect 4 "TANDEM_INJECT with an unknown fault" -- env TANDEM_INJECT=no_such_fault "$tandem" list
expect 1 "TANDEM_INJECT injects (the dot suite catches truncation)" -- \
  env TANDEM_INJECT=dot_x3_single_pass "$tandem" check -q --suite dot --filter 'X3' --backend cpu --out "$out/env"
python3 -c "import json; d=json.load(open('$out/env/records.json')); assert d['records'][0]['context']['injected_fault'] == 'dot_x3_single_pass'" \
  || { echo "FAIL: records of an injected run do not name the fault"; fail=1; }
expect 0 "the owning suites catch: $subset" -- "$tandem" faults --fault "$subset" --out "$out/faults"
cat "$out/stdout"
python3 -c "import json; d=json.load(open('$out/faults/faults.json')); assert d['total'] >= 1 and d['caught_by_owner'] == d['total']" \
  || { echo "FAIL: faults.json"; fail=1; }
exit $fail
