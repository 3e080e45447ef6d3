#!/usr/bin/env bash
# For users' CI: build, run the quick profile with enough repetitions for the gate's statistics, and gate it against the
# baseline of this machine kind (reports/baselines/). Exit code: the gate's (0 pass, 1 correctness, 2 regression, 3
# inconclusive, 4 bad input, 5 infrastructure, 6 incomplete: baseline cases missing or newly skipped, or the run
# killed). The markdown summary, fit for a pull-request comment, is written to results/gate/gate.md. Set
# TANDEM_MACHINE_KIND to pick the baseline explicitly. Pull requests: the baseline build is the merge base with
# origin/main (GATE_BASE_BRANCH), or GATE_BASE_BIN=/path/to/tandem or GATE_BASE_REF=<commit> (built into build-base/
# from `git archive`; GATE_BASE_REF=none: the stored baseline alone), and the performance verdict comes from the
# interleaved A/B gate (ci/gate_ab.sh: baseline and current processes alternating, judged against the between-run
# noise), after a quick correctness run; cost in docs/CI.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/ci/install_deps.sh" && "$root/ci/build.sh" || exit 5
tandem="${BUILD_DIR:-$root/build}/tandem"
out="$root/results/gate"
# By default the baseline build is the merge base with GATE_BASE_BRANCH (origin/main, else main):
# a pull request is judged against the code it branched from. GATE_BASE_REF=none skips the A/B
# gate and uses the stored baseline (reports/baselines/) alone.
if [ -z "${GATE_BASE_BIN:-}${GATE_BASE_REF:-}" ]; then
  for branch in ${GATE_BASE_BRANCH:-origin/main main}; do
    GATE_BASE_REF=$(git -C "$root" merge-base HEAD "$branch" 2>/dev/null) && break
  done
  [ -n "${GATE_BASE_REF:-}" ] && echo "gate: A/B against the merge base with $branch, ${GATE_BASE_REF:0:12}" >&2 ||
    echo "warning: no base branch (${GATE_BASE_BRANCH:-origin/main main}) to A/B against: gating on the stored baseline," \
      "which compares repetitions inside one process and cries wolf on a noisy machine (docs/CI.md)" >&2
fi
[ "${GATE_BASE_REF:-}" = none ] && GATE_BASE_REF=""
if [ -n "${GATE_BASE_BIN:-}${GATE_BASE_REF:-}" ]; then
  base_bin=${GATE_BASE_BIN:-$root/build-base/tandem}
  if [ -z "${GATE_BASE_BIN:-}" ]; then
    src="$root/build-base-src"
    rm -rf "$src" && mkdir -p "$src" && git -C "$root" archive "$GATE_BASE_REF" | tar -x -C "$src" || exit 4
    BUILD_DIR="$root/build-base" "$src/ci/build.sh" -DTANDEM_BUILD_TESTS=OFF || exit 5  # the binary only
  fi
  "$tandem" run -q --profile quick --backend auto -n 1 --out "$out"  # correctness of the whole quick grid
  run_rc=$?
  [ $run_rc = 0 ] || [ $run_rc = 1 ] || exit $run_rc
  GATE_AB_OUT="$out/ab" "$root/ci/gate_ab.sh" "$base_bin" "$tandem" "$@"
  rc=$?
  cp -f "$out/ab/gate.md" "$out/gate.md" 2>/dev/null
  [ $run_rc = 1 ] && { echo "gate: correctness failure in the quick run (results/gate/summary.md)" >&2; exit 1; }
  exit $rc
fi
"$tandem" run -q --profile quick --backend auto -n "${GATE_REPETITIONS:-10}" --out "$out"
run_rc=$?
# A correctness failure still goes through the gate, whose summary names the failed cases.
[ $run_rc = 0 ] || [ $run_rc = 1 ] || exit $run_rc
kind_args=()
[ -n "${TANDEM_MACHINE_KIND:-}" ] && kind_args=(--machine-kind "$TANDEM_MACHINE_KIND")
"$tandem" gate --current "$out/records.json" "${kind_args[@]}" --summary "$out/gate.md" "$@"
rc=$?
# Cases in the baseline that this run lacks or skipped: a vanished case, or cases renamed
# or removed on purpose, whose baseline then needs remaking on this machine kind.
[ $rc = 6 ] && echo "hint: if cases were renamed or removed on purpose, remake the baseline with" \
  "ci/refresh_baseline.sh ${TANDEM_MACHINE_KIND:-} on this machine kind and commit it (reports/baselines/README.md)" >&2
exit $rc
