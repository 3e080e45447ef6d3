#!/usr/bin/env bash
# Configures and builds tandem (CUDA when nvcc is found). BUILD_DIR and extra CMake args may
# be given: `BUILD_DIR=build-cpu ci/build.sh -DTANDEM_WITH_CUDA=OFF`.
# With TANDEM_OFFLINE_PREFIX (ci/unpack_debs.sh) it builds against that prefix alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/ci/offline_env.sh"
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
generator=Ninja
command -v ninja >/dev/null || generator="Unix Makefiles"
cmake -S "$root" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build" -j "$jobs"
