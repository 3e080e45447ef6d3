#!/usr/bin/env bash
# Configures and builds tandem (CUDA when nvcc is found). BUILD_DIR and extra CMake args may
# be given: `BUILD_DIR=build-cpu ci/build.sh -DTANDEM_WITH_CUDA=OFF`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build" -j "$jobs"
