#!/usr/bin/env bash
# A sample of the fuzzer's agreeing cases (every 20th of 2000, seed 4) judged by JAX itself:
# tools/oracles/fuzz_case_vs_jax.py runs each case's chain with jax.vjp / jax.vmap over the program and must find the
# engine agreeing, except on the samples KNOWN lists (open findings, each with why): a sample that differs and is not
# listed fails, and so does a listed one that agrees now. Exit 77 (skip) when the Python lacks JAX.
#   fuzz_vs_jax_test.sh TANDEM PYTHON JUDGE OUT KNOWN
set -uo pipefail
tandem=$1 python=$2 judge=$3 out=$4 known=$5
rm -rf "$out"
"$tandem" fuzz --programs 2000 --seed 4 --sample-every 20 --out "$out" | tail -n 2 || exit 1
"$python" "$judge" "$out"/sample-*.json --quiet > "$out/judge.log" 2>&1
rc=$?
cat "$out/judge.log"
[ "$rc" = 77 ] && exit 77
differing=$(grep -oE 'sample-[0-9]+\.json[^|]*\| engine DIFFERS|sample-[0-9]+\.json: JAX refuses' "$out/judge.log" | grep -oE 'sample-[0-9]+\.json' | sort -u)
listed=$(grep -v '^#' "$known" | cut -f1 | grep . | sort -u)
new=$(comm -23 <(echo "$differing" | grep .) <(echo "$listed"))
gone=$(comm -13 <(echo "$differing" | grep .) <(echo "$listed"))
[ -z "$new" ] || { echo "FAIL: the engine differs from JAX on samples $known does not list:"; echo "$new"; exit 1; }
[ -z "$gone" ] || { echo "FAIL: listed in $known but agreeing with JAX now (remove them):"; echo "$gone"; exit 1; }
if [ "$rc" != 0 ] && [ -z "$differing" ]; then echo "FAIL: the judge exited $rc"; exit 1; fi
echo "ok: the engine agrees with JAX on every sample but the $(echo "$listed" | grep -c .) listed in $known"
