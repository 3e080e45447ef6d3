#!/usr/bin/env bash
# Configures and builds tandem (CUDA when nvcc is found). BUILD_DIR and extra CMake args may
# be given: `BUILD_DIR=build-cpu ci/build.sh -DTANDEM_WITH_CUDA=OFF`.
# BUILD_TARGETS (space-separated) builds only those: the main job needs the `tandem` binary
# alone (ci/quickstart.sh), the test binaries are ci/test.sh's.
# ccache is used when installed (ci/deps.txt brings it): a second build of an unchanged tree
# is cache hits. Pass -DCMAKE_CXX_COMPILER_LAUNCHER= to build without it.
# With TANDEM_OFFLINE_PREFIX (ci/unpack_debs.sh) it builds against that prefix alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/ci/offline_env.sh"
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
generator=Ninja
command -v ninja >/dev/null || generator="Unix Makefiles"
cmake_args=()
command -v ccache >/dev/null && cmake_args=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
# CI keeps the build quiet: a new compiler warning fails it (TANDEM_WERROR).
[ "${CI:-}" = true ] && cmake_args+=(-DTANDEM_WERROR=ON)
cmake -S "$root" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]}" "$@"
targets=()
for t in ${BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j "$jobs" "${targets[@]}"
