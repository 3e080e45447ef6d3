#!/usr/bin/env bash
# The sanitizer job: an AddressSanitizer + UndefinedBehaviorSanitizer build of tandem in its own
# directory (SANITIZE_BUILD_DIR, default build-asan; CPU only unless SANITIZE_CMAKE_ARGS says
# otherwise), then
#   1. every ctest,
#   2. the main job (`tandem run --profile quick`, as ci/quickstart.sh runs it),
#   3. each fuzz target of runners/fuzz for FUZZ_RUNS inputs (default 100000) from the checked-in
#      corpus, at most FUZZ_SECONDS each.
# clang builds the fuzz targets with libFuzzer; without clang, GCC builds them with tandem's own
# mutation driver. UBSan stops at its first report; LeakSanitizer ignores Open MPI's own
# allocations (ci/lsan_openmpi.supp) and nothing of tandem's. Logs and a summary go to
# SANITIZE_OUT (default results/sanitize). SANITIZE_STEPS picks steps (default "ctest quick fuzz";
# without ctest only tandem and the fuzz targets are built).
# Exit: 0 all clean; 1 a sanitizer report, a failing test or a fuzz finding; the quick run's
# own code when only it failed; 3 a fuzz target ran fewer inputs than asked in its time.
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
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:check_initialization_order=1:detect_stack_use_after_return=1}
export LSAN_OPTIONS="suppressions=$root/ci/lsan_openmpi.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

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
targets=(--target tandem npy_fuzz lstm_input_fuzz)
[[ "$steps" == *" ctest "* ]] && targets=()
cmake --build "$build" -j "$jobs" "${targets[@]}" >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 5; }

rc=0
fuzz_targets=(npy lstm_input)
fail() { [ "$rc" != 0 ] || rc=$1; echo "sanitize: FAIL: $2" | tee -a "$out/summary.txt"; }
: >"$out/summary.txt"
if [[ "$steps" == *" ctest "* ]]; then
  ctest --test-dir "$build" --output-on-failure -j "$jobs" >"$out/ctest.log" 2>&1 \
    || fail 1 "ctest ($(grep -c 'Failed\|Timeout\|Exception' "$out/ctest.log") failing; $out/ctest.log)"
  grep -E '^[0-9]+% tests passed' "$out/ctest.log" | tee -a "$out/summary.txt"
fi
if [[ "$steps" == *" quick "* ]]; then
  "$build/tandem" run -q --profile quick --backend auto --out "$out/quick" >"$out/quick.log" 2>&1
  quick_rc=$?
  echo "sanitize: quick main job exit $quick_rc" | tee -a "$out/summary.txt"
  [ "$quick_rc" = 0 ] || fail "$quick_rc" "the quick main job ($out/quick.log)"
fi
[[ "$steps" == *" fuzz "* ]] || fuzz_targets=()
for target in "${fuzz_targets[@]}"; do
  scratch=$(mktemp -d)  # libFuzzer adds what it finds to its first directory, not the repo's corpus
  "$build/fuzz/${target}_fuzz" -runs="$runs" -max_total_time="$seconds" -seed="${FUZZ_SEED:-1}" -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="$out/" "$scratch" "$root/runners/fuzz/corpus/$target" \
    >"$out/fuzz_$target.log" 2>&1
  fuzz_rc=$?
  rm -rf "$scratch"
  n=$(grep -oE 'number_of_executed_units: [0-9]+|fuzz: [0-9]+ inputs' "$out/fuzz_$target.log" | grep -oE '[0-9]+' | tail -1)
  echo "sanitize: fuzz $target: ${n:-0} inputs, exit $fuzz_rc" | tee -a "$out/summary.txt"
  if [ "$fuzz_rc" != 0 ]; then fail 1 "fuzz $target found a crash ($out/fuzz_$target.log)"
  elif [ "${n:-0}" -lt "$runs" ]; then fail 3 "fuzz $target ran ${n:-0} of $runs inputs in ${seconds}s"; fi
done
echo "sanitize: exit $rc (summary: $out/summary.txt)"
exit $rc
