#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs every test through ctest (GoogleTest suites, the
# CLI contract, the reference-independence check and the Python report/gate tests). GPU tests skip with a reason where
# no GPU is visible. Output ends with ctest's summary line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/ci/offline_env.sh"  # TANDEM_OFFLINE_PREFIX: the unpacked bundle, no apt-get
"$root/ci/install_deps.sh"
"$root/ci/build.sh"
cd "${BUILD_DIR:-$root/build}"
# One `cpus` slot per job and two jobs more: the tests that wait (the cluster's chain, on links and watchdogs, and one
# other beside it: cmake/CpuSlots.cmake) run beside JOBS CPU-bound ones, which never outnumber JOBS.
jobs=${JOBS:-$(nproc)}
printf '{"version": {"major": 1, "minor": 0}, "local": [{"cpus": [{"id": "0", "slots": %d}]}]}\n' "$jobs" \
  > ctest_cpus.json
ctest --output-on-failure -j "$((jobs + 2))" --resource-spec-file ctest_cpus.json "$@"
