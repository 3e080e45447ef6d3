#!/usr/bin/env bash
# Configures and builds tandem (CUDA when nvcc is found). BUILD_DIR and extra CMake args may be given:
# `BUILD_DIR=build-cpu ci/build.sh -DTANDEM_WITH_CUDA=OFF`. BUILD_TARGETS (space-separated) builds only those: the main
# job needs the `tandem` binary alone (ci/quickstart.sh), the test binaries are ci/test.sh's. ccache is used when
# installed (ci/deps.txt brings it): a second build of an unchanged tree is cache hits. Pass
# -DCMAKE_CXX_COMPILER_LAUNCHER= to build without it. With TANDEM_OFFLINE_PREFIX (ci/unpack_debs.sh) it builds against
# that prefix alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/ci/offline_env.sh"
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
generator=Ninja
command -v ninja >/dev/null || generator="Unix Makefiles"
cmake_args=()
command -v ccache >/dev/null && cmake_args=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
# A compiler warning fails the build under CI (CI=true) or TANDEM_WERROR=ON: the build is quiet,
# the CPU and the CUDA-ON build alike, and stays so. TANDEM_WERROR=OFF turns it off.
werror=${TANDEM_WERROR:-$([ "${CI:-}" = true ] && echo ON || echo OFF)}
[ "$werror" = ON ] && cmake_args+=(-DTANDEM_WERROR=ON)
# In a log, configure's output goes to BUILD/configure.log; the log keeps what it found
# (`-- tandem:` lines) and CMake's warnings and errors (ci/quiet.sh).
. "$root/ci/quiet.sh"
quietly "configure" "$build/configure.log" '^-- tandem:|^CMake (Warning|Error)' \
  cmake -S "$root" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]}" "$@"
targets=()
for t in ${BUILD_TARGETS:-}; do targets+=(--target "$t"); done
# On a terminal (or VERBOSE=1) the build tool's own output. In a log: the full output goes to
# BUILD/build.log, the log shows a line per tenth of the build steps, every warning and error
# line, and on failure the log's last lines; each as it happens.
if [ -t 1 ] || [ "${VERBOSE:-0}" = 1 ]; then
  exec cmake --build "$build" -j "$jobs" "${targets[@]}"
fi
log=$build/build.log
echo "build: ${BUILD_TARGETS:-every target} in $build (full log: $log)"
set +e
# Read line by line in bash: awk (mawk) fills its input buffer first, so the tenths reached a
# CI log only when the build had ended.
tenths() {
  local line shown=0 tenth
  while IFS= read -r line; do
    if [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
      tenth=$((10 * BASH_REMATCH[1] / BASH_REMATCH[2]))
      if (( tenth > shown )); then echo "build: ${BASH_REMATCH[1]}/${BASH_REMATCH[2]} steps ($((10 * tenth))%)"; shown=$tenth; fi
    elif [[ $line =~ warning:|error:|FAILED: ]]; then
      echo "$line"
    fi
  done
}
cmake --build "$build" -j "$jobs" "${targets[@]}" 2>&1 | tee "$log" | tenths
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" != 0 ]; then
  echo "build: FAILED (exit $rc); the last lines of $log:" >&2
  tail -40 "$log" >&2
fi
exit "$rc"
