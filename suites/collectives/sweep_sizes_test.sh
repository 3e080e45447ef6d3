#!/usr/bin/env bash
# Sizes that round to the same whole number of elements are timed once: sweeps
# whose steps land below one element (-b 1), or step by less than one (-f 1.2 on doubles,
# -f 1.0001), hold no duplicate case, so `tandem gate` and `tandem report` take their records.
# usage: sweep_sizes_test.sh TANDEM
set -uo pipefail
tandem=${1:?usage: sweep_sizes_test.sh TANDEM}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

i=0
for sizes in "-b 1 -e 64" "-b 8 -e 64 -f 1.2 -d double" "-b 1 -e 64 -f 1.0001"; do
  out=$work/$((i++))
  # shellcheck disable=SC2086  # $sizes is the option list under test
  "$tandem" collectives $sizes -n 3 -w 0 --out "$out" > "$out.log" 2>&1 || { cat "$out.log" >&2; fail "$sizes: sweep failed"; }
  python3 - "$out/records.json" <<'PY' || fail "$sizes: duplicate cases"
import collections, json, sys
names = collections.Counter(r["case"] for r in json.load(open(sys.argv[1]))["records"])
dups = [n for n, k in names.items() if k > 1]
assert not dups, f"{len(dups)} duplicate case(s), e.g. {dups[0]}"
PY
  "$tandem" gate --baseline "$out/records.json" --current "$out/records.json" > "$out.gate" 2>&1
  rc=$?  # 3 (inconclusive) is fine: 3 samples a row cannot reach significance; 4 is a refusal
  [[ $rc == 0 || $rc == 3 ]] || { cat "$out.gate" >&2; fail "$sizes: gate of the sweep against itself exited $rc"; }
  "$tandem" report "$out/records.json" -o "$out/report" > "$out.report" 2>&1 ||
    { cat "$out.report" >&2; fail "$sizes: report exited $?"; }
done
echo "PASS: no duplicate sizes; gate and report take the sweeps"
