#!/usr/bin/env bash
# ci/gpu_validate.sh never passes on nothing: where no GPU can be used (hidden here with
# CUDA_VISIBLE_DEVICES=, so the check holds on a GPU machine too), its quick phase records
# every suite's CUDA run as FAIL with the reason, still writes summary.md, and exits 1.
#   ci/gpu_validate_test.sh BUILD_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CUDA_VISIBLE_DEVICES= TANDEM_OFFLINE_PREFIX=/nonexistent BUILD_DIR=$1 \
  "$here/gpu_validate.sh" "$out/v" quick >"$out/stdout" 2>&1
rc=$?
fail=0
[ "$rc" = 1 ] || { echo "FAIL: gpu_validate exit $rc without a usable GPU, want 1"; fail=1; }
[ -f "$out/v/summary.md" ] || { echo "FAIL: no summary.md"; cat "$out/stdout"; exit 1; }
rows=$(grep -c "^| quick | quick_cuda_[a-z_]* | FAIL | 5 | .* asks for a GPU, but " "$out/v/summary.md")
[ "$rows" -ge 2 ] || { echo "FAIL: $rows suite rows FAIL with exit 5 and the reason, want every suite"; fail=1; }
if grep -q "^| quick | quick_cuda_[a-z_]* | pass " "$out/v/summary.md"; then echo "FAIL: a suite passed on no GPU"; fail=1; fi
[ $fail = 0 ] && echo "gpu_validate without a GPU: $rows suites FAIL with the reason, exit 1: ok"
[ $fail = 0 ] || cat "$out/v/summary.md"
exit $fail
