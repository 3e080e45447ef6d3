#!/usr/bin/env bash
# The README's main job: installs what is missing, builds, and runs the quick profile of every suite on the CPU backend,
# plus CUDA when a GPU is visible, the collectives suite at 4 ranks and a short busbw sweep where MPI is installed
# (ci/quick_run.sh). Writes results/quick/{records.json,benchmark.json,summary.md} and prints the summary. Each phase
# says when it starts and how long it took; the last line, the times and the report.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/ci/offline_env.sh"  # TANDEM_OFFLINE_PREFIX: the unpacked bundle, no apt-get
took=()
phase() {  # NUMBER NAME COMMAND...: one phase, announced and timed
  local n=$1 name=$2 t0=$SECONDS; shift 2
  echo "== quickstart $n/3: $name"
  "$@"
  took+=("$((SECONDS - t0))")
  echo "== quickstart $n/3: $name done in ${took[-1]} s"
}
phase 1 "install what ci/deps.txt lists that is missing" "$root/ci/install_deps.sh"
phase 2 "build the tandem binary" env BUILD_TARGETS=tandem "$root/ci/build.sh"
echo "== quickstart 3/3: run the quick profile (ci/quick_run.sh)"
t0=$SECONDS
"$root/ci/quick_run.sh" "$root/results/quick" "$@"
echo "== quickstart: passed in $SECONDS s (install ${took[0]} s, build ${took[1]} s, run $((SECONDS - t0)) s);" \
  "report: $root/results/quick/report/index.html"
