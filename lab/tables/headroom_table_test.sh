#!/bin/sh
# lab/tables/headroom_table.py on records the real binary writes: a small scan_hoist run with an
# exact case and a data-derived one; the table must count the exact checks and list a
# numeric headroom, and a limit of 1 must list the numeric checks above it.
# Usage: headroom_table_test.sh TANDEM_BINARY
set -eu
tandem=$1
here=$(dirname "$0")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$tandem" run --suite scan_hoist --filter 'int_sum/.*mode:stacked|mse/L:30/B:15/F:12/dtype:f32/mode:stacked' \
  --backend cpu -n 1 -q --out "$out" >/dev/null
table=$(python3 -P "$here/headroom_table.py" "$out/records.json")
echo "$table"
echo "$table" | grep -q '^| scan_hoist | [0-9]* / 2 / ' || { echo "FAIL: expected 2 exact checks"; exit 1; }
echo "$table" | grep -q 'non-exact checks with headroom above 10000: 0' || { echo "FAIL: a loose check"; exit 1; }
low=$(python3 -P "$here/headroom_table.py" "$out/records.json" --limit 1)
echo "$low" | grep -q 'mse/L:30' || { echo "FAIL: --limit 1 must list the mse checks"; exit 1; }
rc=0; python3 -P "$here/headroom_table.py" "$out/missing.json" 2>"$out/err" || rc=$?
[ "$rc" = 4 ] && grep -q 'missing.json' "$out/err" && grep -q 'hint:' "$out/err" ||
  { echo "FAIL: a missing file: rc=$rc, want 4, its name and a hint"; exit 1; }
echo ok
