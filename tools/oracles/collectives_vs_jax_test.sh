#!/usr/bin/env bash
# ctest collectives_vs_jax: `tandem collectives-dump` under mpirun at 4 and 2 ranks (the real engine, MPI host buffers),
# then tools/oracles/collectives_vs_jax.py judges every case with JAX on as many host CPU devices. Exit 77 (ctest:
# skipped) when JAX is not installed for python3. usage: collectives_vs_jax_test.sh TANDEM MPIEXEC SOURCE_DIR
set -uo pipefail
tandem=${1:?usage: collectives_vs_jax_test.sh TANDEM MPIEXEC SOURCE_DIR}
mpiexec=${2:?usage: collectives_vs_jax_test.sh TANDEM MPIEXEC SOURCE_DIR}
src=${3:?usage: collectives_vs_jax_test.sh TANDEM MPIEXEC SOURCE_DIR}
. "$(dirname "$0")/jax_test_common.sh"  # SKIP without JAX (python3 on PATH), $work, fail
for np in 4 2; do
  timeout 300 "$mpiexec" -np "$np" --oversubscribe --allow-run-as-root \
    "$tandem" collectives-dump --out "$work/np$np" > "$work/dump$np.log" 2>&1 \
    || { cat "$work/dump$np.log" >&2; fail "tandem collectives-dump at $np ranks exited non-zero"; }
  leftovers=$(find "$work/np$np" -name '*.tmp*' | head -3)
  [[ -z $leftovers ]] || fail "temporary files left in the dump: $leftovers"
  "$python" "$src/tools/oracles/collectives_vs_jax.py" "$work/np$np" 2>&1 | grep -v -i 'warning'
  rc=${PIPESTATUS[0]}
  [[ $rc == 0 ]] || exit "$rc"
done
