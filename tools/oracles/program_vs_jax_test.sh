#!/usr/bin/env bash
# JAX judges tandem's Program cases (docs/JAX_ORACLE.md, Programs): the quick profile's
# remat, scan_hoist and vmap cases are dumped by `tandem dump-programs` and must agree with
# tools/oracles/program_vs_jax.py; then faults are injected and the oracle must catch them (a check
# that cannot fail proves nothing). Exit 77 (ctest SKIP) when JAX is not installed for the
# python3 on PATH.   program_vs_jax_test.sh TANDEM_BINARY
set -uo pipefail
tandem=${1:?usage: program_vs_jax_test.sh TANDEM_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
python3 -c 'import jax' 2> /dev/null || { echo "SKIP: JAX is not installed for $(command -v python3) (python3 -m pip install jax)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. The quick profile's Program cases agree with JAX: every remat and scan_hoist case, and
# the vmap cases under mixed and negative axes (every program family, plain and grad; the
# other axis configurations run in `tools/oracles/program_vs_jax.py` over a full dump, as in
# docs/JAX_ORACLE.md; all of them would take this loaded 2-core machine about 4 minutes).
"$tandem" dump-programs --profile quick --filter '^(remat|scan_hoist)/|^vmap/.*/axes:(mixed|negative)/' "$work/clean" \
  || fail "dump-programs exited $?"
python3 "$here/program_vs_jax.py" "$work/clean" > "$work/clean.log" 2>&1; rc=$?
tail -4 "$work/clean.log"
[ "$rc" = 0 ] || { grep -E '^(FAIL|XPASS)' "$work/clean.log" | head -40; fail "program_vs_jax.py exited $rc on the clean run"; }

# 2. Injected faults are caught: one in the scan primitive (reverse ignored, seen by the exact
# integer reverse sum), one in vmap's dot_general batching rule (seen by its per-example gradients).
for spec in "scan_reverse_ignored|^scan_hoist/int_sum/.*/reverse" "vmap_dot_batch_axis_misplaced|^vmap/grad/dot_general/axes:mixed/"; do
  fault=${spec%%|*} filter=${spec#*|}
  # Exit 5: tandem's own checks stopped a case (listed in index.json, a FAIL of the oracle).
  TANDEM_INJECT=$fault "$tandem" dump-programs --profile quick --filter "$filter" "$work/$fault" 2> /dev/null; rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 5 ] || fail "dump-programs with $fault exited $rc"
  python3 "$here/program_vs_jax.py" "$work/$fault" > "$work/$fault.log" 2>&1; rc=$?
  [ "$rc" = 1 ] && grep -q '^FAIL' "$work/$fault.log" || { cat "$work/$fault.log"; fail "fault $fault escaped the oracle (exit $rc)"; }
  echo "caught $fault: $(grep -c '^FAIL' "$work/$fault.log") failing results"
done
# 3. A primitive the interpreter does not know fails the item, named; it is never skipped.
mkdir "$work/unknown" && cp -r "$(ls -d "$work"/clean/*/ | head -1)" "$work/clean/index.json" "$work/unknown/"
sed -i 's/"primitive":"[a-z_]*"/"primitive":"no_such_prim"/' "$work"/unknown/*/*/program.json
python3 "$here/program_vs_jax.py" "$work/unknown" > "$work/unknown.log" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q 'unknown to the interpreter: no_such_prim' "$work/unknown.log" \
  || { tail -5 "$work/unknown.log"; fail "an unknown primitive did not fail the run (exit $rc)"; }
echo "PASS"
