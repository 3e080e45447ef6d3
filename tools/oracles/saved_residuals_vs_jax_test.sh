#!/usr/bin/env bash
# JAX judges what tandem's vjp saves (docs/JAX_ORACLE.md, Saved residuals): the quick remat cases are dumped by `tandem
# dump-programs` and their saved sets must be JAX's (tools/oracles/saved_residuals_vs_jax.py); then the fault that makes
# a scan inside a checkpoint save its carries (tandem before its carry replay of 2026-11-27) is injected and the oracle
# must catch it, and so is the one that stacks a loop-invariant residual per step.
# Exit 77 (ctest SKIP) without JAX.   saved_residuals_vs_jax_test.sh TANDEM_BINARY [PYTHON]
set -uo pipefail
tandem=${1:?usage: saved_residuals_vs_jax_test.sh TANDEM_BINARY [PYTHON]}
python=${2:-python3}
. "$(dirname "$0")/jax_test_common.sh"  # SKIP without JAX, $work, fail, dump, judge, judge_clean, caught

judge_clean saved_residuals_vs_jax.py '^remat/' 2
# The scans inside checkpoints are among the compared items, under every policy but the two
# that save elementwise values (KNOWN).
n=$(grep -cE '^ok   remat/(lstm|scan_in_checkpoint)/' "$work/clean.log")
[ "$n" -ge 12 ] || fail "only $n checkpoint-around-scan items agreed with JAX (want 12)"
caught saved_residuals_vs_jax.py remat_scan_carries_stacked '^remat/(lstm|scan_in_checkpoint)/'
# A loop-invariant residual (rnn_wt's weight transposes, saved under everything_saveable only) stacked per step, where
# JAX saves it once: the item is KNOWN (tanh's rule), so its difference is read: two f32[4,4,4] more than JAX.
fault=remat_scan_invariant_stacked
TANDEM_INJECT=$fault dump "$fault" '^remat/rnn_wt/.*everything_saveable'
judge saved_residuals_vs_jax.py "$fault"
grep -qE '^KNOWN remat/rnn_wt/.*tandem saves 2 more f32\[4,4,4\]' "$work/$fault.log" \
  || { cat "$work/$fault.log"; fail "fault $fault escaped the oracle"; }
grep -qE '^(KNOWN|ok  ) remat/rnn_wt/.*more f32\[4,4,4\]' "$work/clean.log" && fail "the clean engine stacks rnn_wt's transposes"
echo "caught $fault: rnn_wt's transposes stacked [4,4,4]"
echo "PASS"
