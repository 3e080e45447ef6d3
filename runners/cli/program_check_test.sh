#!/usr/bin/env bash
# `tandem check --program` end to end on a program the real binary wrote (tandem dump-programs: the remat suite's scan
# MLP, with a scan, dots and checkpoint names): every kind of case is made and passes (vmap's effect timed under `run`
# only); an injected engine fault fails it (exit 1); malformed program JSON of eleven kinds and bad companions (inputs,
# axes, policies) are refused with exit 4 and a message that names what is wrong.
#   program_check_test.sh TANDEM
set -u
tandem=$1
. "$(dirname "$0")/../expect_exit.sh"

"$tandem" dump-programs --suite remat --filter 'scan_mlp/.*policy:everything_saveable$' "$out/dump" >/dev/null 2>&1
src=$(ls -d "$out"/dump/*/forward | head -1)
[ -f "$src/program.json" ] || { echo "FAIL: dump-programs wrote no program.json"; exit 1; }
mkdir -p "$out/mlp/inputs"
cp "$src/program.json" "$out/mlp/program.json"
cp "$src/in_0.npy" "$out/mlp/inputs/arg_0.npy"
cp "$src/in_1.npy" "$out/mlp/inputs/arg_1.npy"

expect 0 "check --program on a dumped program" -- "$tandem" check --program "$out/mlp" --vmap-in-axes 0,none -o "$out/r1" -q --backend cpu
# 1 forward + 6 policies (the four, and two over the names act,pre) + vmap + hoist + 18 precisions.
n=$(grep -c '"case": "program/mlp/' "$out/r1/records.json" || true)
[ "$n" = 27 ] && echo "ok: 27 cases" || { echo "FAIL: $n cases, want 27"; fail=1; }
for want in '"case": "program/mlp/vjp/policy:save_only_these_names(act,pre)/cpu"' '"name": "measured_peak_bytes"' \
            '"case": "program/mlp/vmap/size:4/cpu"' '"case": "program/mlp/hoist/cpu"' \
            '"case": "program/mlp/dot/alg:BF16_BF16_F32_X3/cpu"' '"name": "normwise_error_vs_f64"'; do
  grep -qF "$want" "$out/r1/records.json" && echo "ok: records have $want" || { echo "FAIL: no $want in the records"; fail=1; }
done
expect 1 "an injected engine fault fails the check" -- "$tandem" check --program "$out/mlp" -o "$out/r2" -q --backend cpu \
  --inject scan_drops_first_step
expect 0 "--filter and --policy select cases" -- "$tandem" check --program "$out/mlp" -o "$out/r3" -q --backend cpu \
  --policy 'save_only_these_names(act)' --filter vjp
n=$(grep -c '"case": "program/mlp/' "$out/r3/records.json" || true)
[ "$n" = 1 ] && echo "ok: one case selected" || { echo "FAIL: $n cases selected, want 1"; fail=1; }
expect 0 "run times what vmap buys" -- "$tandem" run --program "$out/mlp" --vmap-in-axes 0,none -o "$out/r4" -q --backend cpu --filter vmap -n 1
grep -qF vmap_speedup "$out/r4/records.json" && ! grep -qF vmap_speedup "$out/r1/records.json" && echo "ok: run times vmap, check does not" || { echo "FAIL: vmap_speedup not in run's records only"; fail=1; }

# expect_refusal NAME FRAGMENT JSON: the program file is refused (exit 4) naming FRAGMENT.
expect_refusal() {
  printf '%s' "$3" > "$out/$1.json"
  expect 4 "malformed program: $1" -- "$tandem" check --program "$out/$1.json" -o "$out/bad" -q --backend cpu
  grep -qF -- "$2" "$out/stderr" && echo "ok: $1 names '$2'" || { echo "FAIL: $1: '$2' not in: $(head -3 "$out/stderr")"; fail=1; }
}
head='{"schema_version": 1, "invars": [{"id": 1, "dtype": "f32", "shape": [2, 3]}], '
sin='{"primitive": "sin", "in": [{"var": 1}], "out": [{"id": 2, "dtype": "f32", "shape": [2, 3]}]}'
expect_refusal not_json "not valid JSON" "${head}\"eqns\": [$sin"
expect_refusal no_version "schema_version" '{"invars": [], "eqns": [], "outvars": []}'
expect_refusal version_2 "version" '{"schema_version": 2, "invars": [], "eqns": [], "outvars": []}'
expect_refusal unknown_primitive "model.py:7" "${head}\"eqns\": [{\"primitive\": \"cumprod\", \"in\": [{\"var\": 1}], \"out\": [{\"id\": 2, \"dtype\": \"f32\", \"shape\": [2, 3]}], \"source\": \"model.py:7\"}], \"outvars\": [{\"var\": 2}]}"
grep -qF "tandem has: abs, add," "$out/stderr" && echo "ok: the refusal lists tandem's primitives" || { echo "FAIL: no list of primitives"; fail=1; }
expect_refusal use_before_def "before it is defined" "${head}\"eqns\": [{\"primitive\": \"sin\", \"in\": [{\"var\": 7}], \"out\": [{\"id\": 2, \"dtype\": \"f32\", \"shape\": [2, 3]}]}], \"outvars\": [{\"var\": 2}]}"
expect_refusal wrong_shape "rule says" "${head}\"eqns\": [{\"primitive\": \"sin\", \"in\": [{\"var\": 1}], \"out\": [{\"id\": 2, \"dtype\": \"f32\", \"shape\": [3, 2]}]}], \"outvars\": [{\"var\": 2}]}"
expect_refusal unknown_dtype "f33" '{"schema_version": 1, "invars": [{"id": 1, "dtype": "f33", "shape": [2]}], "eqns": [], "outvars": [{"var": 1}]}'
expect_refusal unknown_field "parms" "${head}\"eqns\": [{\"primitive\": \"sin\", \"in\": [{\"var\": 1}], \"out\": [{\"id\": 2, \"dtype\": \"f32\", \"shape\": [2, 3]}], \"parms\": {}}], \"outvars\": [{\"var\": 2}]}"
expect_refusal negative_dim "shape" '{"schema_version": 1, "invars": [{"id": 1, "dtype": "f32", "shape": [2, -3]}], "eqns": [], "outvars": [{"var": 1}]}'
expect_refusal int_literal "i32" "${head}\"eqns\": [{\"primitive\": \"mul\", \"in\": [{\"var\": 1}, {\"literal\": 1e20, \"dtype\": \"i32\"}], \"out\": [{\"id\": 2, \"dtype\": \"f32\", \"shape\": [2, 3]}]}], \"outvars\": [{\"var\": 2}]}"
expect_refusal param_kind "axes" "${head}\"eqns\": [{\"primitive\": \"reduce_sum\", \"in\": [{\"var\": 1}], \"out\": [{\"id\": 2, \"dtype\": \"f32\", \"shape\": [2]}], \"params\": {\"axes\": \"x\"}}], \"outvars\": [{\"var\": 2}]}"
expect_refusal unknown_param "unknown param 'out_sharding' of reduce_sum" "${head}\"eqns\": [{\"primitive\": \"reduce_sum\", \"in\": [{\"var\": 1}], \"out\": [{\"id\": 2, \"dtype\": \"f32\", \"shape\": [2]}], \"params\": {\"axes\": [1], \"out_sharding\": 3}}], \"outvars\": [{\"var\": 2}]}"
expect_refusal dangling_outvar "outvar" "${head}\"eqns\": [$sin], \"outvars\": [{\"var\": 9}]}"

# Bad companions and options.
mkdir -p "$out/badin/inputs" && cp "$out/mlp/program.json" "$out/badin/" && cp "$src/in_1.npy" "$out/badin/inputs/arg_0.npy" \
  && cp "$src/in_1.npy" "$out/badin/inputs/arg_1.npy"
expect 4 "an input of the wrong shape" -- "$tandem" check --program "$out/badin" -o "$out/bad" -q --backend cpu
grep -qF "input 0" "$out/stderr" || { echo "FAIL: the message does not name input 0"; fail=1; }
rm "$out/badin/inputs/arg_1.npy"
expect 4 "a missing input file" -- "$tandem" check --program "$out/badin" -o "$out/bad" -q --backend cpu
expect 4 "in_axes of the wrong count" -- "$tandem" check --program "$out/mlp" --vmap-in-axes 0 -o "$out/bad" -q --backend cpu
expect 4 "an in_axes entry that is no axis" -- "$tandem" check --program "$out/mlp" --vmap-in-axes 0,x -o "$out/bad" -q --backend cpu
expect 4 "a bad --filter regex" -- "$tandem" check --program "$out/mlp" --filter '(' -o "$out/bad" -q --backend cpu
grep -qF "hint: use RE2 syntax (no backreferences or lookaround), e.g. --filter 'vjp/policy:dots'" "$out/stderr" || { echo "FAIL: no hint"; fail=1; }
expect 4 "an unknown policy" -- "$tandem" check --program "$out/mlp" --policy save_nothing -o "$out/bad" -q --backend cpu
expect 4 "a program that does not exist" -- "$tandem" check --program "$out/nowhere" -o "$out/bad" -q --backend cpu
expect 4 "--program with --suite" -- "$tandem" check --program "$out/mlp" --suite dot -o "$out/bad" -q --backend cpu
expect 4 "--inputs without --program" -- "$tandem" check --inputs "$out/mlp/inputs" -o "$out/bad" -q --backend cpu
exit $fail
