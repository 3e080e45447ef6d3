#!/usr/bin/env bash
# Remakes the committed gate baseline of this machine kind in one command: a full quick-profile run of every suite, then
# `tandem baseline refresh`, which validates the records (schema, a completed run), warns about failed cases and
# installs reports/baselines/<kind>/records.json. Run it on the machine kind the baseline is for (CI's), after merging
# new or renamed cases or a change that moves performance on purpose, then commit the file.
# Usage: ci/refresh_baseline.sh [MACHINE_KIND]   (default: TANDEM_MACHINE_KIND, else the kind
#        derived from the run's context, e.g. cpu-x86_64-2t). REPETITIONS (default 5) sets -n.
# Exit code: tandem's (4 when the run had failed cases: a baseline must be a passing run).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tandem="${BUILD_DIR:-$root/build}/tandem"
[ -x "$tandem" ] || { echo "error: $tandem not found; hint: build first (ci/build.sh)" >&2; exit 5; }
kind="${1:-${TANDEM_MACHINE_KIND:-}}"
out="$root/results/baseline-refresh"
rm -rf "$out"
start=$(date +%s)
"$tandem" run -q --profile quick --backend auto -n "${REPETITIONS:-5}" --out "$out"
rc=$?
echo "quick run: exit $rc in $(( $(date +%s) - start )) s; load: $(uptime)" >&2
if [ $rc != 0 ]; then
  echo "error: the quick run exited $rc; hint: a baseline must come from a passing run: fix the failures" \
       "(results/baseline-refresh/summary.md lists them) and run this again" >&2
  [ $rc = 1 ] && exit 4 || exit $rc
fi
"$tandem" baseline refresh "$out/records.json" ${kind:+--machine-kind "$kind"}
