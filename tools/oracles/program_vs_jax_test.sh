#!/usr/bin/env bash
# JAX judges tandem's Program cases (docs/JAX_ORACLE.md, Programs): the quick profile's
# remat, scan_hoist and vmap cases are dumped by `tandem dump-programs` and must agree with
# tools/oracles/program_vs_jax.py; then faults are injected and the oracle must catch them (a check
# that cannot fail proves nothing). Exit 77 (ctest SKIP) when JAX is not installed for the
# python3 on PATH.   program_vs_jax_test.sh TANDEM_BINARY
set -uo pipefail
tandem=${1:?usage: program_vs_jax_test.sh TANDEM_BINARY}
. "$(dirname "$0")/jax_test_common.sh"  # SKIP without JAX, $here, $work, fail, judge, judge_clean, caught

# 1. The quick profile's Program cases agree with JAX: every remat and scan_hoist case, and
# the vmap cases under mixed and negative axes (every program family, plain and grad; the
# other axis configurations run in `tools/oracles/program_vs_jax.py` over a full dump, as in
# docs/JAX_ORACLE.md; all of them would take this loaded 2-core machine about 4 minutes).
judge_clean program_vs_jax.py '^(remat|scan_hoist)/|^vmap/.*/axes:(mixed|negative)/' 4

# 2. Injected faults are caught: one in the scan primitive (reverse ignored, seen by the exact
# integer reverse sum), one in vmap's dot_general batching rule (seen by its per-example gradients).
caught program_vs_jax.py scan_reverse_ignored '^scan_hoist/int_sum/.*/reverse'
caught program_vs_jax.py vmap_dot_batch_axis_misplaced '^vmap/grad/dot_general/axes:mixed/'
# 3. A primitive the interpreter does not know fails the item, named; it is never skipped.
mkdir "$work/unknown" && cp -r "$(ls -d "$work"/clean/*/ | head -1)" "$work/clean/index.json" "$work/unknown/"
sed -i 's/"primitive":"[a-z_]*"/"primitive":"no_such_prim"/' "$work"/unknown/*/*/program.json
judge program_vs_jax.py unknown
[ "$rc" = 1 ] && grep -q 'unknown to the interpreter: no_such_prim' "$work/unknown.log" \
  || { tail -5 "$work/unknown.log"; fail "an unknown primitive did not fail the run (exit $rc)"; }
echo "PASS"
