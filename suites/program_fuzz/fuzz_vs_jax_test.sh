#!/usr/bin/env bash
# A sample of the fuzzer's agreeing cases (every 20th of 2000, seed 4) judged by JAX itself:
# tools/oracles/fuzz_case_vs_jax.py runs each case's chain with jax.vjp / jax.vmap over the program
# and must find the engine agreeing. Exit 77 (skip) when the Python lacks JAX.
#   fuzz_vs_jax_test.sh TANDEM PYTHON JUDGE OUT
set -uo pipefail
tandem=$1 python=$2 judge=$3 out=$4
rm -rf "$out"
"$tandem" fuzz --programs 2000 --seed 4 --sample-every 20 --out "$out" | tail -n 2 || exit 1
"$python" "$judge" "$out"/sample-*.json --quiet
