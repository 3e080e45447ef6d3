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
. "$(dirname "$0")/jax_test_common.sh"  # SKIP without JAX, $work, fail, judge_clean, caught

judge_clean recompute_vs_jax.py '^remat/' 2
# The scans under remat are among the compared items, recomputing something.
n=$(grep -cE '^ok   remat/(lstm|scan_in_checkpoint|rnn_wt)/.*policy:nothing_saveable: tandem \{.+\}' "$work/clean.log")
[ "$n" -ge 3 ] || fail "only $n checkpoint-around-scan items under nothing_saveable agreed with JAX (want 3)"
caught recompute_vs_jax.py remat_scan_recomputes_twice '^remat/(lstm|scan_in_checkpoint|rnn_wt)/'
echo "PASS"
