#!/usr/bin/env bash
# The CLI's contract, end to end: exit codes (0 pass, 1 correctness failure, 4 bad input,
# 5 infrastructure error), records that parse and survive a failing case, clear errors.
set -uo pipefail
tandem=$1
. "$(dirname "$0")/expect_exit.sh"  # $out, $fail, expect CODE DESCRIPTION -- COMMAND...
expect 0 "--version names the version and git sha" -- "$tandem" --version
grep -Eq '^tandem [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-f]+' "$out/stdout" || { echo "FAIL: --version: $(cat "$out/stdout")"; fail=1; }
# Every git call of the run context passes --no-optional-locks (else `git status`
# takes the source tree's .git/index.lock); a git that logs its arguments stands in front.
mkdir -p "$out/gitbin" && printf '#!/bin/sh\necho "$*" >>"%s"\nexec "%s" "$@"\n' "$out/git.log" "$(command -v git)" \
  >"$out/gitbin/git" && chmod +x "$out/gitbin/git"
PATH="$out/gitbin:$PATH" expect 0 "--version asks git for the sha" -- "$tandem" --version
grep -q rev-parse "$out/git.log" && ! grep -v -- --no-optional-locks "$out/git.log" \
  || { echo "FAIL: a git call without --no-optional-locks: $(cat "$out/git.log")"; fail=1; }
for sub in report merge gate history baseline; do
  expect 0 "$sub --help is the Python tool's help" -- "$tandem" $sub --help
  grep -q "^usage: tandem $sub" "$out/stdout" || { echo "FAIL: $sub --help: $(head -2 "$out/stdout")"; fail=1; }
done
expect 0 "run --help shows defaults and the suites" -- "$tandem" run --help
grep -q -- '--profile TEXT=quick' "$out/stdout" && grep -q 'dot' "$out/stdout" || { echo "FAIL: run --help lacks defaults"; fail=1; }
expect 0 "check passes on a dot subset" -- "$tandem" check -q --suite dot --filter 'M:17.*in:f32' --out "$out/a"
python3 -c "import json,sys; d=json.load(open('$out/a/records.json')); assert d['records'] and all(r['verdict'] in ('pass','skip') for r in d['records'])" \
  || { echo "FAIL: records.json invalid"; fail=1; }
expect 0 "run times cases and writes benchmark.json" -- "$tandem" run -q -n 2 --suite dot --filter 'M:4/K:1/.*in:f32/alg:F32' --out "$out/b"
python3 -c "import json; d=json.load(open('$out/b/benchmark.json')); assert d['benchmarks'][0]['real_time'] > 0" \
  || { echo "FAIL: benchmark.json invalid"; fail=1; }
# A run killed midway leaves its partial records.json, never beside the previous
# run's benchmark.json and summary.md (a run removes them when it takes its --out).
# Waits for the first record as long as the run lives (a loaded runner may take minutes), not 60 s.
"$tandem" run -q -n 20 --suite lstm --out "$out/b" >/dev/null 2>&1 & pid=$!
while kill -0 $pid 2>/dev/null; do grep -qs '"case"' "$out/b/records.json" && ! grep -qs '"complete"' "$out/b/records.json" && break; sleep 0.1; done
kill -9 $pid; wait $pid 2>/dev/null
[ ! -e "$out/b/benchmark.json" ] && [ ! -e "$out/b/summary.md" ] && [ -e "$out/b/records.json" ] \
  || { echo "FAIL: a killed run: $(ls "$out/b" | tr '\n' ' ')"; fail=1; }
expect 4 "unknown profile is bad input" -- "$tandem" run --profile weekly
grep -q "hint: use quick or nightly" "$out/stderr" || { echo "FAIL: bad input without a hint"; fail=1; }
expect 4 "the removed full profile is bad input naming nightly" -- "$tandem" list --profile full
grep -q "hint: use nightly: full selected the same cases" "$out/stderr" || { echo "FAIL: --profile full without its hint"; fail=1; }
expect 4 "unknown backend is bad input" -- "$tandem" run --backend tpu
expect 4 "an unknown --exclude-suite is bad input" -- "$tandem" run --exclude-suite nosuch --out "$out/ex"
expect 4 "--suite with --exclude-suite is bad input" -- "$tandem" run --suite dot --exclude-suite lstm --out "$out/ex"
expect 4 "merge of a folder that holds no run is bad input" -- "$tandem" merge "$out/no-run" -o "$out/merged"
expect 4 "bad regex is bad input" -- "$tandem" check --filter '('
grep -q "hint: use RE2 syntax" "$out/stderr" || { echo "FAIL: bad regex without the RE2 hint"; fail=1; }
# std::regex backtracked exponentially on '(.*.*)*' over the ~100-character case names (minutes); RE2 (name_matcher,
# harness/case.h) is linear. "At once" is scaled by the machine's load: 10 s plus 20 times the same command with a plain
# pattern takes now (≈ 0.2 s idle here; std::regex took over 20 s idle, and the load slows it as much as the plain one).
limit() {  # CMD...: the time limit for CMD's pathological twin, in whole seconds
  local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
  echo $(( 10 + 20 * (t1 - t0) / 1000000000 + 1 ))
}
expect 0 "a pathological --filter lists at once" -- timeout "$(limit "$tandem" list --filter 'y')" \
  "$tandem" list --filter '(.*.*)*y'
expect 0 "a pathological --filter runs at once" -- \
  timeout "$(limit "$tandem" check -q --filter 'M:17/K:33/N:9/in:f32/alg:F64' --out "$out/re_plain")" \
  "$tandem" check -q --filter '(.*.*)*M:17/K:33/N:9/in:f32/alg:F64' --out "$out/re"
expect 4 "a pathological --fault matching nothing is refused at once" -- \
  timeout "$(limit "$tandem" faults --fault 'zzz' --out "$out/re_faults_plain")" \
  "$tandem" faults --fault '(.*.*)*zzz' --out "$out/re_faults"
expect 4 "unknown option is bad input" -- "$tandem" run --frobnicate
# An unknown subcommand is named, the subcommands in the hint (CLI11 said only
# "A subcommand is required"); --bidirectional is 0 or 1 before any input is read.
expect 4 "an unknown subcommand is bad input" -- "$tandem" lsit
grep -q "unknown subcommand 'lsit'" "$out/stderr" && grep -q "hint: .*list | run | check" "$out/stderr" \
  || { echo "FAIL: unknown subcommand: $(head -2 "$out/stderr")"; fail=1; }
for v in 2 -1; do
  expect 4 "--bidirectional $v is bad input" -- "$tandem" lstm --in /nonexistent --out "$out/l" --bidirectional $v
  grep -q -- "--bidirectional: value $v is not a finite number in \[0, 1\]" "$out/stderr" && grep -q "hint:" "$out/stderr" \
    || { echo "FAIL: --bidirectional $v: $(head -2 "$out/stderr")"; fail=1; }
done
# `run collectives` is neither the sweep nor the suite: bad input naming both commands.
expect 4 "run collectives is bad input" -- "$tandem" run collectives -b 1K -e 4K -o psum
grep -q "tandem run --suite collectives" "$out/stderr" && grep -q "sweep is .tandem collectives" "$out/stderr" \
  || { echo "FAIL: run collectives: the hint does not name both commands"; cat "$out/stderr"; fail=1; }
expect 4 "a suite as a word to check is bad input" -- "$tandem" check dot
grep -q "hint: .tandem check --suite dot" "$out/stderr" || { echo "FAIL: check dot: no --suite hint"; fail=1; }
expect 0 "the sweep has its own command" -- "$tandem" collectives --help
grep -q "minbytes" "$out/stdout" || { echo "FAIL: tandem collectives --help does not list the sweep flags"; fail=1; }
# The help lists the sweep's ops from the op table, and -o is the reduction op as in nccl-tests.
grep -q "ragged_all_to_all" "$out/stdout" && grep -q -- "-o,--op TEXT:sum" "$out/stdout" \
  || { echo "FAIL: collectives --help lacks the op table's ops or nccl-tests' -o"; fail=1; }
TANDEM_SELFTEST=1 expect 1 "a wrong result is a correctness failure" -- "$tandem" check -q --suite selftest --out "$out/c"
python3 -c "
import json; d=json.load(open('$out/c/records.json'))
v={r['case']:r['verdict'] for r in d['records']}
assert v['selftest/passes/cpu']=='pass' and v['selftest/wrong/cpu']=='fail' and v['selftest/throws/cpu']=='error', v
assert v['selftest/check_fails/cpu']=='fail', v
" || { echo "FAIL: a failing case lost other records"; fail=1; }
TANDEM_SELFTEST=1 expect 5 "an internal error is an infrastructure error" -- "$tandem" check -q --filter 'selftest/throws' --out "$out/d"
# A wrong value the engine finds through an exception (a failed TANDEM_CHECK on the case's
# result) is a correctness failure, never an infrastructure error a CI would retry.
TANDEM_SELFTEST=1 expect 1 "a failed engine check is a correctness failure" -- \
  "$tandem" check -q --filter 'selftest/check_fails' --out "$out/d2"
grep -q '"verdict": *"fail"' "$out/d2/records.json" && grep -q 'check failed: ' "$out/d2/records.json" \
  || { echo "FAIL: a failed engine check: its record is not a failure naming the check"; fail=1; }
# --backend cuda / all need a usable GPU: without one (hidden here by CUDA_VISIBLE_DEVICES, or
# absent, or a build without CUDA) they exit 5 naming the reason; auto runs cpu and says why.
for b in cuda all; do
  CUDA_VISIBLE_DEVICES= expect 5 "--backend $b without a usable GPU is an infrastructure error" -- \
    "$tandem" check -q --suite dot --filter 'M:17.*in:f32' --backend $b --out "$out/e"
  grep -Eq "asks for a GPU, but (no usable CUDA device: |this tandem was built without the CUDA backend)" "$out/stderr" \
    || { echo "FAIL: --backend $b exit 5 without the reason"; head -3 "$out/stderr"; fail=1; }
  [ ! -e "$out/e/records.json" ] || { echo "FAIL: --backend $b wrote records of skipped cases"; fail=1; }
done
CUDA_VISIBLE_DEVICES= expect 0 "--backend auto without a usable GPU runs the cpu cases" -- \
  "$tandem" check -q --suite dot --filter 'M:17.*in:f32' --backend auto --out "$out/f"
grep -q "note: --backend auto: CUDA cases skipped: " "$out/stderr" || { echo "FAIL: auto skipped CUDA silently"; fail=1; }
# The NCCL sweep without a visible GPU: an infrastructure error (5) that says why, not a crash.
CUDA_VISIBLE_DEVICES= expect 5 "collectives --backend nccl without a GPU" -- timeout 60 \
  "$tandem" collectives --backend nccl -b 1K -e 1K -n 1 -w 0 --out "$out/nccl_sweep"
grep -q "NCCL backend: " "$out/stderr" || { echo "FAIL: --backend nccl without a GPU: no reason"; head -3 "$out/stderr"; fail=1; }
# A second run into an --out another run is writing (held here by flock(1), as a
# running tandem holds it) is refused before it writes, not interleaved with the first's records.
mkdir -p "$out/busy"
expect 4 "a run into an --out another run is writing is bad input" -- \
  flock "$out/busy" "$tandem" check -q --suite dot --filter 'M:17.*in:f32' --out "$out/busy"
grep -q "another tandem run is writing to --out" "$out/stderr" && [ ! -e "$out/busy/records.json" ] \
  || { echo "FAIL: busy --out: $(head -2 "$out/stderr")"; fail=1; }
# Every numeric and enumerated option is range-checked at parse time: bad input with a hint,
# never a silent default, an endless size loop (-f nan, -e past int64) or an abort (exit 124).
while IFS= read -r args; do
  # shellcheck disable=SC2086  # word splitting of the probe is intended
  expect 4 "out-of-range option: $args" -- timeout 30 "$tandem" $args
  grep -q "hint:" "$out/stderr" || { echo "FAIL: $args: no hint"; head -3 "$out/stderr"; fail=1; }
done <<'PROBES'
collectives --watchdog-timeout 0
collectives --watchdog-timeout -1
collectives --watchdog-timeout nan
collectives --watchdog-timeout 1e-9
collectives -w -3
collectives -n 0
collectives --inplace sideways
collectives -c 2
collectives --interleave 7
collectives --ops psum,,psum
collectives --ops psum,nope
collectives --ops pmax
collectives -o psum
collectives -o prod
collectives --ops psum_scatter -o max -b 1K -e 1K -n 1 -w 0 --out /tmp/tandem-cli-probe
collectives -d f128
collectives -d fp8
collectives -g 2
collectives -g ring
collectives -t 4
collectives --groups ring
collectives --raw 2
collectives --percentiles yes
collectives --time-reduce median
collectives --backend gloo
collectives -f nan
collectives -f inf
collectives -f 1
collectives -e 99999999999999999999
collectives -b 0
collectives -e 2T
run -w -3
run -n 0
run --min-time nan
run --min-time inf
run --min-time -1
list --backend gpu
check --backend gpu
lstm --in /nonexistent --out /tmp/x --threads -1
lstm --in /nonexistent --out /tmp/x --threads 100000
lstm --in /nonexistent --out /tmp/x --num-layers 2000000000
lstm --in /nonexistent --out /tmp/x --hidden-size 0
collectives-dump --seed abc
run -n 2x
collectives -f fast
PROBES
rm -rf /tmp/tandem-cli-probe  # the one probe that gets as far as the sweep's --out
# No option takes an empty value or a negative integer (one check for every
# option, runners/cli/option_checks.h; the Parser of reports/__main__.py): each used to be a
# silent "every suite", default, wrapped seed or write into the working directory, exit 0.
mkdir -p "$out/cwd" && cd "$out/cwd" || exit 1
while IFS= read -r args; do
  eval "set -- $args"
  expect 4 "empty or negative: $args" -- timeout 60 "$tandem" "$@"
  grep -Eq "an empty value|is negative" "$out/stderr" && grep -q "hint:" "$out/stderr" \
    || { echo "FAIL: $args: $(head -2 "$out/stderr")"; fail=1; }
done <<'PROBES'
check -q --suite '' --filter 'M:17.*in:f32' --out "$out/s"
check -q --suite dot --filter 'M:17.*in:f32' --out ''
collectives -b 1K -e 1K -n 1 -w 0 --out ''
collectives-dump --ops psum --seed -1 --out "$out/dump"
dump-programs ''
faults --fault nothing --out ''
lstm --in /nonexistent --out "$out/l" --precision ''
dot --in /nonexistent --out "$out/d" --lhs-contracting -1 --rhs-contracting 0
dot --in /nonexistent --out "$out/d" --precision ''
dot --in /nonexistent --out "$out/d" --algorithm ''
dot --in /nonexistent --out "$out/d" --preferred-element-type ''
dot --in /nonexistent --out "$out/d" --lhs-dtype ''
report "$out/a/records.json" -o ''
gate --current "$out/a/records.json" --machine-kind ''
PROBES
[ -z "$(ls -A "$out/cwd")" ] || { echo "FAIL: an empty value wrote into the working directory: $(ls "$out/cwd")"; fail=1; }
if [ $fail = 0 ]; then echo "cli contract: all ok"; fi
exit $fail
