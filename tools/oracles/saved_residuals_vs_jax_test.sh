#!/usr/bin/env bash
# JAX judges what tandem's vjp saves (docs/JAX_ORACLE.md, Saved residuals): the quick remat
# cases are dumped by `tandem dump-programs` and their saved sets must be JAX's
# (tools/oracles/saved_residuals_vs_jax.py); then the fault that makes a scan inside a checkpoint
# save its carries (tandem before issue 29 §4) is injected and the oracle must catch it.
# Exit 77 (ctest SKIP) without JAX.   saved_residuals_vs_jax_test.sh TANDEM_BINARY [PYTHON]
set -uo pipefail
tandem=${1:?usage: saved_residuals_vs_jax_test.sh TANDEM_BINARY [PYTHON]}
python=${2:-python3}
here=$(cd "$(dirname "$0")" && pwd)
"$python" -c 'import jax' 2> /dev/null || { echo "SKIP: JAX is not installed for $python"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$tandem" dump-programs --profile quick --filter '^remat/' "$work/clean" > /dev/null 2>&1 \
  || fail "dump-programs exited $?"
"$python" "$here/saved_residuals_vs_jax.py" "$work/clean" > "$work/clean.log" 2>&1; rc=$?
tail -2 "$work/clean.log"
[ "$rc" = 0 ] || { grep -A2 -E '^(FAIL|XPASS)' "$work/clean.log" | head -60; fail "saved_residuals_vs_jax.py exited $rc"; }
# The scans inside checkpoints are among the compared items, under every policy but the two
# that save elementwise values (KNOWN).
n=$(grep -cE '^ok   remat/(lstm|scan_in_checkpoint)/' "$work/clean.log")
[ "$n" -ge 12 ] || fail "only $n checkpoint-around-scan items agreed with JAX (want 12)"

fault=remat_scan_carries_stacked
TANDEM_INJECT=$fault "$tandem" dump-programs --profile quick --filter '^remat/(lstm|scan_in_checkpoint)/' "$work/$fault" > /dev/null 2>&1
"$python" "$here/saved_residuals_vs_jax.py" "$work/$fault" > "$work/$fault.log" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q '^FAIL' "$work/$fault.log" || { cat "$work/$fault.log"; fail "fault $fault escaped the oracle (exit $rc)"; }
echo "caught $fault: $(grep -c '^FAIL' "$work/$fault.log") failing items"
echo "PASS"
