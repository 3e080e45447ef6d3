#!/usr/bin/env bash
# `--program` on hostile input (docs/PROGRAM_JSON.md, "Limits"; docs/IMPORT.md): a 100,000-deep value in any field of
# program.json, 5,000 nested checkpoint bodies, a shape past 2^40 elements (2^96 wraps int64 to an empty-looking count),
# and each malformed companion (export.json's vmap, saved_residuals.json, --policy) must be refused as bad input (exit
# 4, a hint, a short message that does not quote the whole value) by every command that reads --program, when the
# program is loaded: never a crash, a raw library error, a case that errors or passes later, or a run of minutes. A
# program nested right at the limit loads. usage: program_limits_test.sh TANDEM EXAMPLES_DIR
set -uo pipefail
tandem=${1:?usage: program_limits_test.sh TANDEM EXAMPLES_DIR}
examples=${2:?usage: program_limits_test.sh TANDEM EXAMPLES_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect_bad_input NAME WORD CMD...: exit 4, a hint, WORD in the message, under 4 kB of it.
expect_bad_input() {
  local name=$1 word=$2
  shift 2
  timeout 120 "$@" > "$work/out.log" 2> "$work/err.log"
  local rc=$? size
  size=$(wc -c < "$work/err.log")
  if [[ $rc != 4 ]]; then fail "$name: exit $rc, want 4: $(head -c 300 "$work/err.log")"; return; fi
  grep -q -- "$word" "$work/err.log" || fail "$name: no '$word' in: $(head -c 300 "$work/err.log")"
  grep -q "hint" "$work/err.log" || fail "$name: no hint in: $(head -c 300 "$work/err.log")"
  (( size < 4000 )) || fail "$name: a $size-byte message (it quotes the value whole?)"
}

python3 - "$work" "$examples" <<'PY'
import json, os, shutil, sys
work, examples = sys.argv[1], sys.argv[2]
base = json.load(open(os.path.join(examples, "mlp_checkpoint", "program.json")))
deep = "[" * 100000 + "]" * 100000
def write(name, text):
    os.makedirs(os.path.join(work, name), exist_ok=True)
    open(os.path.join(work, name, "program.json"), "w").write(text)
# A 100,000-deep value where each kind of field is: a param, a shape, an id, a literal, a source,
# the top level's own fields; and the whole file.
text = json.dumps(base)
eq = json.dumps(base["eqns"][0])
for field, edit in {
    "param": lambda e: e.setdefault("params", {}).__setitem__("deep", "DEEP"),
    "shape": lambda e: e["out"][0].__setitem__("shape", "DEEP"),
    "id": lambda e: e["out"][0].__setitem__("id", "DEEP"),
    "source": lambda e: e.__setitem__("source", "DEEP"),
    "in": lambda e: e.__setitem__("in", "DEEP"),
}.items():
    e = json.loads(eq)
    edit(e)
    p = dict(base, eqns=[e] + base["eqns"][1:])
    write("deep_" + field, json.dumps(p).replace('"DEEP"', deep))
write("deep_schema_version", json.dumps(dict(base, schema_version="DEEP")).replace('"DEEP"', deep))
write("deep_file", deep)
write("number_1e999", json.dumps(base).replace('"shape": [6, 16]', '"shape": [6, 1e999]', 1))
write("shape_2_96", json.dumps(base).replace('"shape": [6, 16]', '"shape": [4294967296, 4294967296, 4294967296]', 1))
# Checkpoint bodies nested N deep around sin: f32[3] -> f32[3].
def nested(n):
    ids = iter(range(1, 10**6))
    def prog(level, top):
        x, y = next(ids), next(ids)
        t = {"dtype": "f32", "shape": [3]}
        if level == 0:
            eqn = {"primitive": "sin", "in": [{"var": x}], "out": [dict(t, id=y)]}
        else:
            eqn = {"primitive": "checkpoint", "in": [{"var": x}], "out": [dict(t, id=y)],
                   "params": {"body": {"program": prog(level - 1, False)}, "policy": "nothing_saveable",
                              "prevent_cse": True}}
        p = {"invars": [dict(t, id=x)], "eqns": [eqn], "outvars": [{"var": y}]}
        return dict({"schema_version": 1}, **p) if top else p
    return prog(n, True)
import sys as _s
_s.setrecursionlimit(100000)
write("nested_5000", json.dumps(nested(5000)))
write("nested_65", json.dumps(nested(65)))
write("nested_64", json.dumps(nested(64)))
# Companions: the mlp_checkpoint export with one thing wrong each.
def companion(name, edit_export=None, residuals=None):
    d = os.path.join(work, name)
    shutil.copytree(os.path.join(examples, "mlp_checkpoint"), d)
    if edit_export is not None:
        e = json.load(open(os.path.join(d, "export.json")))
        e = edit_export(e)
        open(os.path.join(d, "export.json"), "w").write(e if isinstance(e, str) else json.dumps(e))
    if residuals is not None:
        open(os.path.join(d, "jax", "saved_residuals.json"), "w").write(json.dumps(residuals))
n_in = len(base["invars"])
vm = lambda size, axes=None: (lambda e: dict(e, vmap={"in_axes": axes or [0] + [None] * (n_in - 1), "size": size}))
companion("vmap_size_0", vm(0))
companion("vmap_size_huge", vm(2**20 + 1))
companion("vmap_size_null", vm(None))
companion("vmap_axis_out_of_range", vm(4, [7] + [None] * (n_in - 1)))
companion("vmap_not_object", lambda e: dict(e, vmap=[0]))
companion("export_not_object", lambda e: "[1, 2]")
companion("export_deep", lambda e: deep)
companion("residuals_bad_type", residuals={"nothing_saveable": ["f32[8,", "f32[2]"]})
companion("residuals_bad_policy", residuals={"save_only_these_names(": ["f32[2]"]})
companion("residuals_deep", residuals="DEEP")
open(os.path.join(work, "residuals_deep", "jax", "saved_residuals.json"), "w").write(deep)
companion("valid")
PY

for cmd in check list run bench dump-programs; do
  args=("$cmd")
  [[ $cmd == dump-programs ]] && args+=("$work/dump")
  [[ $cmd == check || $cmd == run ]] && args+=(--out "$work/out_$cmd" -q)
  for f in param shape id source in schema_version file; do
    expect_bad_input "$cmd: 100,000-deep $f" "nested more than" "$tandem" "${args[@]}" --program "$work/deep_$f"
  done
  expect_bad_input "$cmd: 5,000 nested checkpoint bodies" "nested more than" "$tandem" "${args[@]}" --program "$work/nested_5000"
done
expect_bad_input "a number past double (1e999)" "not valid JSON" "$tandem" list --program "$work/number_1e999"
expect_bad_input "a shape of 2^96 elements (wraps int64 to 0)" "holds more than 2^40 elements" \
  "$tandem" check --program "$work/shape_2_96" --out "$work/out_2_96" -q
expect_bad_input "65 nested checkpoint bodies" "sub-programs nest more than 64" "$tandem" list --program "$work/nested_65"
"$tandem" list --program "$work/nested_64" > "$work/list64.log" 2>&1 || fail "64 nested bodies (the limit) do not load: $(head -c 300 "$work/list64.log")"
"$tandem" check --program "$work/nested_64" --filter forward -q --out "$work/out64" > "$work/check64.log" 2>&1 ||
  fail "64 nested bodies (the limit) do not check: $(tail -c 300 "$work/check64.log")"

expect_bad_input "vmap size 0" "vmap size 0 is not an integer in" "$tandem" list --program "$work/vmap_size_0"
expect_bad_input "vmap size 2^20+1" "vmap size 1048577" "$tandem" list --program "$work/vmap_size_huge"
expect_bad_input "vmap size null" "vmap size null" "$tandem" list --program "$work/vmap_size_null"
expect_bad_input "vmap axis 7 of a rank-2 input" "in_axes\[0\] is 7" "$tandem" list --program "$work/vmap_axis_out_of_range"
expect_bad_input "vmap not an object" '"vmap" is an object' "$tandem" list --program "$work/vmap_not_object"
expect_bad_input "--vmap-size 2^20" "--vmap-size" "$tandem" list --program "$work/valid" --vmap-in-axes 0,none,none,none,none,none,none,none --vmap-size 1048576
expect_bad_input "export.json not an object" "not an object" "$tandem" list --program "$work/export_not_object"
expect_bad_input "export.json 100,000 deep" "nested more than" "$tandem" list --program "$work/export_deep"
expect_bad_input "a residual type that is no type" "not a type like" "$tandem" list --program "$work/residuals_bad_type"
expect_bad_input "a residuals key that is no policy" "is not a policy" "$tandem" list --program "$work/residuals_bad_policy"
expect_bad_input "saved_residuals.json 100,000 deep" "nested more than" "$tandem" list --program "$work/residuals_deep"
expect_bad_input "a policy naming a value the program lacks" "names no value 'nosuch'" \
  "$tandem" list --program "$work/valid" --policy 'save_only_these_names(pre,nosuch)'
expect_bad_input "an unknown policy" "unknown remat policy" "$tandem" list --program "$work/valid" --policy 'no_such_policy'
"$tandem" list --program "$work/valid" --policy 'save_only_these_names(pre)' > "$work/valid.log" 2>&1 ||
  fail "a policy naming the program's value is refused: $(head -c 300 "$work/valid.log")"

(( failures == 0 )) || { echo "$failures failure(s)" >&2; exit 1; }
echo "PASS: deep values, deep nesting and malformed companions are bad input at load (exit 4) for every --program command"
