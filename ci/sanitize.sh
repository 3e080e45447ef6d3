#!/usr/bin/env bash
# The sanitizer job: an AddressSanitizer + UndefinedBehaviorSanitizer build of tandem in its own directory
# (SANITIZE_BUILD_DIR, default build-asan; CPU only unless SANITIZE_CMAKE_ARGS says otherwise), then
#   1. every ctest,
#   2. the main job (`tandem run --profile quick`, as ci/quickstart.sh runs it),
#   3. each fuzz target of runners/fuzz (.npy, `tandem lstm`'s inputs, --program's program.json
#      and companions) for FUZZ_RUNS inputs (default 100000) from the checked-in corpus, at most
#      FUZZ_SECONDS each; the Python tools' targets (reports/fuzz.py, atheris,
#      corpus runners/fuzz/corpus/py_*) too, run by the build's TANDEM_PYTHON, so a traceback on
#      bad input fails the job as a crash does.
# clang builds the fuzz targets with libFuzzer; without clang, GCC builds them with tandem's own mutation driver. UBSan
# stops at its first report; LeakSanitizer ignores Open MPI's own allocations (ci/lsan_openmpi.supp, matched by library
# name) and nothing of tandem's. Open MPI and the libraries under it are built without frame pointers, and the
# components MPI_Finalize dlclose()s leave their frames as "<unknown module>", which no suppression can match. So leaks
# are judged by ci/sanitizer_reports.py, not by each process's exit code (LeakSanitizer's exitcode=0, the exit code of
# every fatal sanitizer report; abort_on_error=1 makes an ASan or UBSan error abort instead, so it still fails its own
# test): a leak whose first caller is an unloaded module is counted as Open MPI's (nothing of tandem's is ever
# unloaded), any other leak fails the job, as does any ASan or UBSan report. A self-check proves the planted tandem leak
# of ci/lsan_selfcheck.cc is still caught that way. SANITIZE_SLOW_UNWIND=1 switches ctest and the quick job to DWARF
# unwinding at each allocation (fast_unwind_on_malloc=0), which names Open MPI's libraries in the stacks so the
# suppressions match by name, at about 10x the run time. Sanitizer reports go to files under
# SANITIZE_OUT/sanitizer/<step>/ (log_path), one per process, and every step scans its own; the suppressions used are
# summed per library into the summary. Logs and a summary go to SANITIZE_OUT (default results/sanitize). SANITIZE_STEPS
# picks steps (default "ctest quick fuzz"; without ctest only tandem and the fuzz targets are built). Exit: 0 all clean;
# 1 a sanitizer report, a failing test or a fuzz finding; the quick run's own code when only it failed; 3 a fuzz target
# ran fewer inputs than asked in its time.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/ci/offline_env.sh"  # TANDEM_OFFLINE_PREFIX: the unpacked bundle, no apt-get
build=${SANITIZE_BUILD_DIR:-$root/build-asan}
out=${SANITIZE_OUT:-$root/results/sanitize}
jobs=${JOBS:-$(nproc)}
runs=${FUZZ_RUNS:-100000}
seconds=${FUZZ_SECONDS:-1800}
steps=" ${SANITIZE_STEPS:-ctest quick fuzz} "
mkdir -p "$out"
start=$(date +%s)
asan_base=${ASAN_OPTIONS:-detect_leaks=1:check_initialization_order=1:detect_stack_use_after_return=1}
unwind=$([ "${SANITIZE_SLOW_UNWIND:-0}" = 1 ] && echo 0 || echo 1)  # fast_unwind_on_malloc for ctest and quick
# sanitizer_env STEP UNWIND [LSAN_EXITCODE]: reports of this step's processes into $out/sanitizer/STEP/;
# LeakSanitizer exits 0 on leaks unless told (the reports are judged by ci/sanitizer_reports.py).
sanitizer_env() {
  rm -rf "$out/sanitizer/$1"
  mkdir -p "$out/sanitizer/$1"
  local abort=$([ "${3:-0}" = 0 ] && echo 1 || echo 0)  # abort() on an error, unless LSan's exit code is asked for
  export ASAN_OPTIONS="$asan_base:abort_on_error=$abort:fast_unwind_on_malloc=$2:log_path=$out/sanitizer/$1/report"
  export LSAN_OPTIONS="suppressions=$root/ci/lsan_openmpi.supp:print_suppressions=1:exitcode=${3:-0}"
  export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=$abort:print_stacktrace=1:log_path=$out/sanitizer/$1/report"  # one file per process for both
}
# scan_reports STEP: fails on any sanitizer report of STEP; sums the suppressions it used.
scan_reports() {
  local dir="$out/sanitizer/$1" bad
  python3 "$root/ci/sanitizer_reports.py" "$1" "$dir" --list | tee -a "$out/summary.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || fail 1 "$1: sanitizer reports (above; $dir)"
  cat "$dir"/* 2>/dev/null | awk -v step="$1" '
    /^Suppressions used:/ { on = 1; n++; next }
    on && /^ *count/ { next }
    on && /^-+$/ { on = 0; next }
    on && NF == 3 { c[$3] += $1; b[$3] += $2 }
    END { line = ""; for (t in c) line = line sprintf(" %s %d (%d B);", t, c[t], b[t])
          printf "sanitize: %s: leak suppressions: %d processes;%s\n", step, n, (line == "" ? " none" : line) }' \
    | tee -a "$out/summary.txt"
}

# The compiler: clang when it can link libFuzzer, else the default C++ compiler.
probe=$(mktemp -d)
compiler=(-DTANDEM_LIBFUZZER=OFF)
echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' >"$probe/p.cc"
if command -v clang++ >/dev/null && clang++ -fsanitize=fuzzer,address "$probe/p.cc" -o "$probe/p" 2>/dev/null; then
  compiler=(-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang -DTANDEM_LIBFUZZER=ON)
else
  echo "sanitize: no clang with libFuzzer; the fuzz targets use tandem's mutation driver"
fi
rm -rf "$probe"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
generator=Ninja
command -v ninja >/dev/null || generator="Unix Makefiles"
# shellcheck disable=SC2086  # SANITIZE_CMAKE_ARGS is a list of arguments
cmake -S "$root" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  -DTANDEM_SANITIZE=address,undefined -DTANDEM_WITH_CUDA=OFF "${compiler[@]}" "${launcher[@]}" \
  ${SANITIZE_CMAKE_ARGS:-} >"$out/configure.log" 2>&1 || { cat "$out/configure.log"; exit 5; }
targets=(--target tandem npy_fuzz lstm_input_fuzz program_json_fuzz)
cmake --build "$build" --target help 2>/dev/null | grep -q lsan_selfcheck && targets+=(lsan_selfcheck)  # MPI found
[[ "$steps" == *" ctest "* ]] && targets=()
cmake --build "$build" -j "$jobs" "${targets[@]}" >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 5; }
python=${TANDEM_PYTHON:-$(sed -n 's/^TANDEM_PYTHON:FILEPATH=//p' "$build/CMakeCache.txt")}  # the fuzz targets' Python

rc=0
fuzz_targets=(npy lstm_input program_json py_records py_gate_config py_history)
fail() { [ "$rc" != 0 ] || rc=$1; echo "sanitize: FAIL: $2" | tee -a "$out/summary.txt"; }
: >"$out/summary.txt"
# The suppressions hide Open MPI's leaks and nothing of tandem's: an MPI process with one planted
# leak of its own (ci/lsan_selfcheck.cc) must exit 1 reporting exactly that leak, its tandem::
# frame named, and the Open MPI leaks suppressed. Otherwise no clean leak check below means a thing.
if [ -x "$build/ci/lsan_selfcheck" ]; then
  # Slow unwinding, LeakSanitizer's own exit code: only the planted leak, Open MPI's suppressed.
  sanitizer_env selfcheck 0 1
  "$build/ci/lsan_selfcheck" >"$out/lsan_selfcheck.log" 2>&1
  self_rc=$?
  cat "$out/sanitizer/selfcheck"/* >>"$out/lsan_selfcheck.log" 2>/dev/null
  leaks=$(grep -cE '^(Direct|Indirect) leak' "$out/lsan_selfcheck.log")
  if [ "$self_rc" = 1 ] && [ "$leaks" = 1 ] && grep -q '^Direct leak of 4242 byte' "$out/lsan_selfcheck.log" \
     && grep -q 'in tandem::plant_leak_of_4242_bytes' "$out/lsan_selfcheck.log" \
     && grep -q '^Suppressions used:' "$out/lsan_selfcheck.log"; then
    echo "sanitize: LeakSanitizer self-check: the planted leak reported, Open MPI's suppressed" | tee -a "$out/summary.txt"
  else
    fail 1 "LeakSanitizer self-check: exit $self_rc, $leaks leaks reported, want exit 1 and only the planted one ($out/lsan_selfcheck.log)"
  fi
  # The unwinding ctest and quick use, judged by ci/sanitizer_reports.py: exactly the planted leak fails.
  sanitizer_env selfcheck_judged "$unwind"
  "$build/ci/lsan_selfcheck" >"$out/lsan_selfcheck_judged.log" 2>&1
  python3 "$root/ci/sanitizer_reports.py" selfcheck "$out/sanitizer/selfcheck_judged" --list >>"$out/lsan_selfcheck_judged.log"
  judged_rc=$?
  if [ "$judged_rc" = 1 ] && grep -q ' 1 leaks in loaded code' "$out/lsan_selfcheck_judged.log" \
     && grep -q 'in tandem::plant_leak_of_4242_bytes' "$out/lsan_selfcheck_judged.log"; then
    echo "sanitize: report judge self-check: the planted leak, and only it, fails ($(grep -oE '[0-9]+ leaks only in unloaded modules' "$out/lsan_selfcheck_judged.log"))" | tee -a "$out/summary.txt"
  else
    fail 1 "report judge self-check: the planted leak was not the one leak judged as tandem's ($out/lsan_selfcheck_judged.log)"
  fi
else
  echo "sanitize: no MPI in this build: no Open MPI leaks to suppress, no self-check" | tee -a "$out/summary.txt"
fi
if [[ "$steps" == *" ctest "* ]]; then
  sanitizer_env ctest "$unwind"
  t0=$(date +%s)
  ctest --test-dir "$build" --output-on-failure -j "$jobs" ${SANITIZE_CTEST_ARGS:-} >"$out/ctest.log" 2>&1 \
    || fail 1 "ctest ($(grep -cE '\*\*\*(Failed|Timeout|Exception)' "$out/ctest.log") failing; $out/ctest.log)"
  echo "sanitize: ctest: $(grep -E '^[0-9]+% tests passed' "$out/ctest.log"), $(( $(date +%s) - t0 )) s" | tee -a "$out/summary.txt"
  grep -E '^ +[0-9]+ - .*\((Not Run|Disabled|Skipped)\)' "$out/ctest.log" | sed 's/^/sanitize: ctest not run: /' | tee -a "$out/summary.txt"
  scan_reports ctest
fi
if [[ "$steps" == *" quick "* ]]; then
  sanitizer_env quick "$unwind"
  t0=$(date +%s)
  "$build/tandem" run -q --profile quick --backend auto --out "$out/quick" >"$out/quick.log" 2>&1
  quick_rc=$?
  echo "sanitize: quick main job exit $quick_rc, $(grep -oE '[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped, [0-9]+ errors' "$out/quick.log" | tail -1), $(( $(date +%s) - t0 )) s" | tee -a "$out/summary.txt"
  [ "$quick_rc" = 0 ] || fail "$quick_rc" "the quick main job ($out/quick.log)"
  scan_reports quick
fi
[[ "$steps" == *" fuzz "* ]] || fuzz_targets=()
[ ${#fuzz_targets[@]} = 0 ] || sanitizer_env fuzz 1  # no MPI here: the fast unwinder
for target in "${fuzz_targets[@]}"; do
  t0=$(date +%s)
  scratch=$(mktemp -d)  # libFuzzer adds what it finds to its first directory, not the repo's corpus
  cmd=("$build/fuzz/${target}_fuzz" -max_len=4096)
  [[ $target == program_json ]] && cmd=("$build/fuzz/${target}_fuzz" -max_len=65536)  # an export with its companions
  # A seed history database is 8-17 KB; without atheris exit 78, 0 inputs run, so exit 3 below.
  [[ $target == py_* ]] && cmd=(env PYTHONPATH="$root" "${python:-python3}" -m reports.fuzz "${target#py_}" -max_len=32768)
  "${cmd[@]}" -runs="$runs" -max_total_time="$seconds" -seed="${FUZZ_SEED:-1}" \
    -print_final_stats=1 -artifact_prefix="$out/" "$scratch" "$root/runners/fuzz/corpus/$target" \
    >"$out/fuzz_$target.log" 2>&1
  fuzz_rc=$?
  [[ $target == py_* && $fuzz_rc = 78 ]] && fuzz_rc=0
  rm -rf "$scratch"
  n=$(grep -oE 'number_of_executed_units: [0-9]+|fuzz: [0-9]+ inputs' "$out/fuzz_$target.log" | grep -oE '[0-9]+' | tail -1)
  echo "sanitize: fuzz $target: ${n:-0} inputs, exit $fuzz_rc, $(( $(date +%s) - t0 )) s" | tee -a "$out/summary.txt"
  if [ "$fuzz_rc" != 0 ]; then fail 1 "fuzz $target found a crash ($out/fuzz_$target.log)"
  elif [ "${n:-0}" -lt "$runs" ]; then fail 3 "fuzz $target ran ${n:-0} of $runs inputs in ${seconds}s"; fi
done
[ ${#fuzz_targets[@]} = 0 ] || scan_reports fuzz
echo "sanitize: exit $rc, $(( $(date +%s) - start )) s in all (summary: $out/summary.txt)" | tee -a "$out/summary.txt"
exit $rc
