#!/usr/bin/env bash
# Under mpirun only rank 0 writes files, and writes them whole. Each rank starts in a directory of its own and gets the
# same relative --out, so a file written by any other rank would show up under that rank's directory. Checked for the
# sweep (`tandem collectives`) and for the case harness (`tandem run --suite collectives`): rank 0's directory holds
# complete JSON (the expected record count, no leftover temporary files); every other rank's directory stays empty.
# usage: rank0_writes_test.sh TANDEM MPIEXEC [NP]
set -euo pipefail
tandem=${1:?usage: rank0_writes_test.sh TANDEM MPIEXEC [NP]}
mpiexec=${2:?usage: rank0_writes_test.sh TANDEM MPIEXEC [NP]}
np=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Runs tandem under mpirun, each rank in $work/<label>/rank<r>.
launch() {
  local label=$1; shift
  for ((r = 0; r < np; ++r)); do mkdir -p "$work/$label/rank$r"; done
  "$mpiexec" -np "$np" --oversubscribe --allow-run-as-root \
    sh -c 'cd "$0/rank${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" && exec "$@"' "$work/$label" "$tandem" "$@" \
    > "$work/$label.log" 2>&1 || { cat "$work/$label.log" >&2; fail "$label: tandem exited non-zero"; }
}

# $1 label, $2 files rank 0 must hold; checks the other ranks wrote nothing.
expect_rank0_only() {
  local label=$1; shift
  for f in "$@"; do [[ -s $work/$label/rank0/out/$f ]] || fail "$label: rank 0 did not write out/$f"; done
  leftovers=$(find "$work/$label/rank0" -name '*.tmp*')
  [[ -z $leftovers ]] || fail "$label: temporary files left behind: $leftovers"
  for ((r = 1; r < np; ++r)); do
    written=$(find "$work/$label/rank$r" -mindepth 1)
    [[ -z $written ]] || fail "$label: rank $r wrote files: $written"
  done
}

# A records document in $1 with exactly $2 records.
expect_records() {
  python3 - "$1" "$2" <<'EOF' || fail "$1: not $2 complete records"
import json, sys
records = json.load(open(sys.argv[1]))["records"]
assert len(records) == int(sys.argv[2]), len(records)
assert all(r["suite"] == "collectives" for r in records)
EOF
}

# The sweep: 2 ops × 3 sizes (nccl-tests size suffixes), out of place, no raw call → 6 rows.
launch sweep collectives -b 1K -e 4K -f 2 -n 2 -w 1 --inplace out --raw 0 --ops psum,all_gather --out out
expect_rank0_only sweep records.json
expect_records "$work/sweep/rank0/out/records.json" 6
grep -Eq "^ +1024 +256 +float +sum" "$work/sweep.log" || fail "sweep: rank 0 printed no table"
[[ $(grep -c "^# Avg bus bandwidth" "$work/sweep.log") == 1 ]] || fail "sweep: the table header is printed by more than one rank"

# The case harness: the psum cases (5 dtypes × 4 layouts; those that do not fit skip).
launch harness run --suite collectives --filter 'op:psum/' -n 1 -w 0 --out out
expect_rank0_only harness records.json summary.md benchmark.json
expect_records "$work/harness/rank0/out/records.json" 20

echo "PASS: only rank 0 of $np wrote files, and they are complete"
