#!/usr/bin/env bash
# The nightly differential fuzz (docs/FUZZING.md): 10^5 programs (NIGHTLY_FUZZ_PROGRAMS) under a seed that changes every
# night (the date, or NIGHTLY_FUZZ_SEED), every disagreement shrunk and written, every 2000th agreeing case sampled;
# then JAX judges both (tools/oracles/fuzz_case_vs_jax.py). JAX is the tie-breaker: a case where the engine disagrees
# with JAX fails the night (exit 1); one where the engine agrees with JAX and the reference or the tolerance was off is
# reported (the residual rate, measured in docs/FUZZING.md) without failing it.
#   OUT=dir ci/nightly_fuzz.sh TANDEM PYTHON
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tandem=$1 python=$2 out=${OUT:?OUT=dir}
seed=${NIGHTLY_FUZZ_SEED:-$(date -u +%Y%m%d)}
"$tandem" fuzz --programs "${NIGHTLY_FUZZ_PROGRAMS:-100000}" --seed "$seed" --max-failures 50 --sample-every 2000 \
  --out "$out" > "$out.log" 2>&1
fuzz_rc=$?
tail -n 5 "$out.log"
[[ $fuzz_rc == 0 || $fuzz_rc == 1 ]] || { echo "nightly fuzz: tandem fuzz exited $fuzz_rc (log: $out.log)" >&2; exit "$fuzz_rc"; }
shopt -s nullglob
cases=("$out"/case-*.json "$out"/sample-*.json)
(( ${#cases[@]} )) || { echo "nightly fuzz: nothing written under $out" >&2; exit 1; }
"$python" "$root/tools/oracles/fuzz_case_vs_jax.py" "${cases[@]}" --quiet > "$out/jax.log" 2>&1
jax_rc=$?
tail -n 1 "$out/jax.log"
case $jax_rc in
  0) echo "nightly fuzz: seed $seed: every case JAX can judge has the engine agreeing with JAX" ;;
  77) echo "nightly fuzz: JAX is not installed: the disagreements ($fuzz_rc) were not judged" >&2; exit "$fuzz_rc" ;;
  *) echo "nightly fuzz: seed $seed: the engine disagrees with JAX (log: $out/jax.log)" >&2; exit 1 ;;
esac
