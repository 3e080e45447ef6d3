#!/bin/sh
# lab/tables/perf_tables.py's options: --help prints the usage (exit 0, no traceback), a page
# that does not exist is refused with its name and a hint (exit 4), an unknown option is refused.
set -eu
here=$(dirname "$0")
py=${1:-python3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$py" "$here/perf_tables.py" --help >"$out/help" 2>&1 || { cat "$out/help"; echo "FAIL: --help exits non-zero"; exit 1; }
grep -q '^usage:' "$out/help" || { echo "FAIL: --help prints no usage"; exit 1; }
rc=0; "$py" "$here/perf_tables.py" "$out/missing.md" 2>"$out/err" || rc=$?
[ "$rc" = 4 ] && grep -q 'missing.md' "$out/err" && grep -q 'hint:' "$out/err" ||
  { cat "$out/err"; echo "FAIL: a missing page: rc=$rc, want 4, its name and a hint"; exit 1; }
rc=0; "$py" "$here/perf_tables.py" --bogus 2>"$out/err" || rc=$?
[ "$rc" != 0 ] && ! grep -q Traceback "$out/err" || { echo "FAIL: --bogus: rc=$rc"; exit 1; }
echo ok
