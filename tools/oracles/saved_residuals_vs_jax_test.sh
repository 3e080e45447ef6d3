#!/usr/bin/env bash
# JAX judges what tandem's vjp saves (docs/JAX_ORACLE.md, Saved residuals): the quick remat cases are dumped by `tandem
# dump-programs` and their saved sets must be JAX's (tools/oracles/saved_residuals_vs_jax.py); then the fault that makes
# a scan inside a checkpoint save its carries (tandem before its carry replay of 2026-11-27) is injected and the oracle
# must catch it, and so is the one that stacks a loop-invariant residual per step.
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
# A loop-invariant residual (rnn_wt's weight transposes, saved under everything_saveable only) stacked per step, where
# JAX saves it once: the item is KNOWN (tanh's rule), so its difference is read: two f32[4,4,4] more than JAX.
fault=remat_scan_invariant_stacked
TANDEM_INJECT=$fault "$tandem" dump-programs --profile quick --filter '^remat/rnn_wt/.*everything_saveable' "$work/$fault" > /dev/null 2>&1
"$python" "$here/saved_residuals_vs_jax.py" "$work/$fault" > "$work/$fault.log" 2>&1
grep -qE '^KNOWN remat/rnn_wt/.*tandem saves 2 more f32\[4,4,4\]' "$work/$fault.log" \
  || { cat "$work/$fault.log"; fail "fault $fault escaped the oracle"; }
grep -qE '^(KNOWN|ok  ) remat/rnn_wt/.*more f32\[4,4,4\]' "$work/clean.log" && fail "the clean engine stacks rnn_wt's transposes"
echo "caught $fault: rnn_wt's transposes stacked [4,4,4]"
echo "PASS"
