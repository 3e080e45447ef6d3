#!/usr/bin/env bash
# lab/bench/coll_mpi_grid.sh and its table on a tiny real 2-rank grid: one op,
# two single-copy mechanisms, two rounds → a folder per (round, configuration) and a table
# naming every algorithm ompi_info lists; and their refusals (exit 4 with a hint): a missing
# binary, an unknown op, an unwritable folder, a missing, empty or garbled grid folder.
# usage: coll_mpi_grid_test.sh TANDEM
set -uo pipefail
tandem=${1:?usage: coll_mpi_grid_test.sh TANDEM}
here=$(cd "$(dirname "$0")" && pwd)
grid=$here/coll_mpi_grid.sh
table=$here/../tables/coll_mpi_grid_table.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
refused() {  # what, then the command: it must exit 4 and give a hint
  local what=$1 rc=0; shift
  "$@" > "$work/out" 2> "$work/err" || rc=$?
  [[ $rc == 4 ]] && grep -q "hint:" "$work/err" || { cat "$work/err" >&2; fail "$what: exit $rc, not 4 with a hint"; }
}
export OPS=psum_scatter MECHANISMS="cma none" SWEEP="-b 64K -e 64K -n 2 -w 1"

refused "missing binary" env TANDEM="$work/none" "$grid" "$work/a"
refused "unknown op" env TANDEM="$tandem" OPS=psum,no_such_op "$grid" "$work/b"
touch "$work/file"
refused "unwritable folder" env TANDEM="$tandem" "$grid" "$work/file/sub"
refused "missing folder" "$table" "$work/nowhere"
mkdir "$work/empty"
refused "empty folder" "$table" "$work/empty"

TANDEM=$tandem "$grid" "$work/grid" 2 2> "$work/grid.err" || { cat "$work/grid.err" >&2; fail "the tiny grid failed"; }
algs=$(ompi_info --param coll tuned --level 9 | grep -A3 'parameter "coll_tuned_reduce_scatter_block_algorithm"' |
       sed -n 's/.*Valid values: //p' | tr ',' '\n' | grep -vc '0:')
for r in 1 2; do for m in cma none; do for ((k = 0; k <= algs; ++k)); do
  [[ -s $work/grid/r$r/$m-a$k/records.json.gz && -s $work/grid/r$r/$m-a$k/config.json ]] || fail "no run r$r/$m-a$k"
done; done; done
"$table" "$work/grid" > "$work/table" || fail "the table of the tiny grid failed"
grep -q "^| psum_scatter / MPI_Reduce_scatter_block | default (cma / none) | basic_linear (cma / none) |" "$work/table" ||
  { cat "$work/table" >&2; fail "no header naming the algorithms and mechanisms"; }
grep -qE "^\| 64 KiB \| .* \| [a-z_]+, (cma|none): [0-9.]+ \| [a-z_]+, (cma|none): [0-9.]+ \| [0-9.]+ \([0-9.]+–[0-9.]+\) " \
  "$work/table" || { cat "$work/table" >&2; fail "no 64 KiB row with both bests and a ratio"; }
echo garbage > "$work/grid/r2/cma-a1/config.json"
refused "garbled folder" "$table" "$work/grid"
echo "PASS: the grid's runs and table; its refusals exit 4 with a hint"
