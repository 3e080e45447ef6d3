#!/usr/bin/env bash
# JAX judges what tandem's vjp recomputes (docs/JAX_ORACLE.md, Recompute counts): the quick remat cases are dumped by
# `tandem dump-programs` and, per primitive of tools/oracles/recompute_vs_jax.py's COMPARED, tandem's recompute counts
# must be JAX's (its pullback's applications beyond everything_saveable's); then the fault that makes a scan under remat
# recompute each step's values twice (tandem before the replay stacked them) is injected and the oracle must catch it.
# Exit 77 (ctest SKIP) without JAX.
#   recompute_vs_jax_test.sh TANDEM_BINARY [PYTHON]
set -uo pipefail
tandem=${1:?usage: recompute_vs_jax_test.sh TANDEM_BINARY [PYTHON]}
python=${2:-python3}
here=$(cd "$(dirname "$0")" && pwd)
"$python" -c 'import jax' 2> /dev/null || { echo "SKIP: JAX is not installed for $python"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$tandem" dump-programs --profile quick --filter '^remat/' "$work/clean" > /dev/null 2>&1 \
  || fail "dump-programs exited $?"
"$python" "$here/recompute_vs_jax.py" "$work/clean" > "$work/clean.log" 2>&1; rc=$?
tail -2 "$work/clean.log"
[ "$rc" = 0 ] || { grep -E '^FAIL' "$work/clean.log" | head -40; fail "recompute_vs_jax.py exited $rc"; }
# The scans under remat are among the compared items, recomputing something.
n=$(grep -cE '^ok   remat/(lstm|scan_in_checkpoint|rnn_wt)/.*policy:nothing_saveable: tandem \{.+\}' "$work/clean.log")
[ "$n" -ge 3 ] || fail "only $n checkpoint-around-scan items under nothing_saveable agreed with JAX (want 3)"

fault=remat_scan_recomputes_twice
TANDEM_INJECT=$fault "$tandem" dump-programs --profile quick --filter '^remat/(lstm|scan_in_checkpoint|rnn_wt)/' "$work/$fault" > /dev/null 2>&1
"$python" "$here/recompute_vs_jax.py" "$work/$fault" > "$work/$fault.log" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q '^FAIL' "$work/$fault.log" || { cat "$work/$fault.log"; fail "fault $fault escaped the oracle (exit $rc)"; }
echo "caught $fault: $(grep -c '^FAIL' "$work/$fault.log") failing items"
echo "PASS"
