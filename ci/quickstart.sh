#!/usr/bin/env bash
# The README's main job: installs what is missing, builds, and runs the quick profile of
# every suite on the CPU backend, plus CUDA when a GPU is visible, the collectives suite at 4
# ranks and a short busbw sweep where MPI is installed (ci/quick_run.sh). Writes
# results/quick/{records.json,benchmark.json,summary.md} and prints the summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/ci/offline_env.sh"  # TANDEM_OFFLINE_PREFIX: the unpacked bundle, no apt-get
"$root/ci/install_deps.sh"
BUILD_TARGETS=tandem "$root/ci/build.sh"
"$root/ci/quick_run.sh" "$root/results/quick" "$@"
