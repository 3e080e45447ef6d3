#!/usr/bin/env bash
# ci/gtest_skips.py (gpu_validate.sh's no_gtest_skips) on small fixture logs shaped like
# `ctest -V` output (numbered lines, gtest colours):
#   by_design    a pass and a skip whose reason is in the table (too few ranks)   → exit 0
#   other_skip   the same plus a capability skip and a skip without a message    → exit 1, both named
#   none_ran     only by-design skips, no test passed                             → exit 1
#   side_by_side two ctest tests' lines interleaved: each skip keeps its own message → exit 1
#   no_log       a log that does not exist                                        → exit 2
#   ci/gtest_skips_test.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
# expect CASE RC PATTERN...: gtest_skips.py on $work/CASE.log exits RC and prints each PATTERN.
expect() {
  local case_=$1 want=$2 rc p; shift 2
  python3 "$here/gtest_skips.py" "$work/$case_.log" >"$work/$case_.out" 2>&1
  rc=$?
  [ "$rc" = "$want" ] || { echo "FAIL: $case_: exit $rc, want $want"; cat "$work/$case_.out"; fail=1; }
  for p in "$@"; do
    grep -qE -- "$p" "$work/$case_.out" || { echo "FAIL: $case_: no /$p/ in:"; cat "$work/$case_.out"; fail=1; }
  done
}
esc=$'\e'
pass_block() { printf '%s: %s[ RUN      ] %s%s\n%s: %s[       OK ] %s%s (1 ms)\n' "$1" "${esc}[0;32m" "${esc}[m" "$2" "$1" "${esc}[0;32m" "${esc}[m" "$2"; }
skip_block() { printf '%s: [ RUN      ] %s\n%s: engine/comm/x_test.cc:12: Skipped\n%s: %s\n%s: \n%s: [  SKIPPED ] %s (0 ms)\n' "$1" "$2" "$1" "$1" "$3" "$1" "$1" "$2"; }
layout='groups:pairs needs an even number of ranks, this run has 1; run with mpirun -np 2 or 4'

{ pass_block 24 Nccl.TransportOpsOnDeviceBuffers
  skip_block 39 "All/CollectiveCase.NcclMatchesReferenceOnEveryRank/7" "$layout"
  echo "39: [  SKIPPED ] All/CollectiveCase.NcclMatchesReferenceOnEveryRank/7"; } >"$work/by_design.log"
expect by_design 0 "by design: All/CollectiveCase.NcclMatchesReferenceOnEveryRank/7: groups:pairs" \
  "^1 tests passed, 1 skipped by design, 0 skipped otherwise"

{ cat "$work/by_design.log"
  skip_block 12 CudaBackend.DotOnDevice "no CUDA device visible"
  printf '13: [ RUN      ] Nccl.Silent\n13: [  SKIPPED ] Nccl.Silent (0 ms)\n'; } >"$work/other_skip.log"
expect other_skip 1 "FAILS: CudaBackend.DotOnDevice: no CUDA device visible" "FAILS: Nccl.Silent: \(no message\)" \
  "^1 tests passed, 1 skipped by design, 2 skipped otherwise"

skip_block 39 "All/CollectiveCase.NcclMatchesReferenceOnEveryRank/7" "$layout" >"$work/none_ran.log"
expect none_ran 1 "^0 tests passed, 1 skipped by design" "error: no test passed"

# Test 5 (a capability skip) and test 6 (by design) run side by side; their lines alternate.
paste -d'\n' <(skip_block 5 Nccl.A "NCCL backend: rank 0 (of 1): no CUDA device is visible") \
             <(skip_block 6 Semantics.B "needs 4 ranks, this run has 1 (the 2 x 2 mesh)") >"$work/side_by_side.log"
pass_block 7 Mesh.C >>"$work/side_by_side.log"
expect side_by_side 1 "FAILS: Nccl.A: NCCL backend" "by design: Semantics.B: needs 4 ranks" "^1 tests passed, 1 skipped by design, 1 skipped otherwise"

expect no_log 2 "error: cannot read the log"

[ $fail = 0 ] && echo "gtest_skips on fixture logs (by design, other skips, none ran, side by side, no log): ok"
exit $fail
