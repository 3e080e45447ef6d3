#!/usr/bin/env bash
# The collectives sweep against raw MPI at every Open MPI setting that matters on one host
# (a peer at its own best configuration), 2 ranks. A configuration is the shared-
# memory transport's single-copy mechanism (btl_vader_single_copy_mechanism, every value
# ompi_info lists) × an algorithm index K of coll_tuned: K = 0 is Open MPI's default decision,
# K ≥ 1 forces, for each op, the K-th algorithm ompi_info lists for the collective its raw call
# is (psum's MPI_Allreduce → coll_tuned_allreduce_algorithm); an op whose collective has fewer
# algorithms sits out. Every algorithm applies to 2 ranks here (each ran and passed its check
# in Open MPI 4.1.4); a configuration whose run fails is logged in OUT/run.log and skipped.
# Each run times the tandem ops and their raw calls interleaved (--interleave 1), the
# configurations rotate across REPS rounds, and each writes
#   OUT/r<R>/<mechanism>-a<K>/records.json.gz   the sweep's records
#   OUT/r<R>/<mechanism>-a<K>/config.json       {single_copy, algorithm per op, the MCA settings}
# lab/tables/coll_mpi_grid_table.py OUT sets them side by side.
#   lab/bench/coll_mpi_grid.sh OUT [REPS]    (REPS default 3; TANDEM default build/tandem;
#   OPS default psum,all_gather,psum_scatter,all_to_all,ragged_all_to_all; MECHANISMS default
#   every listed one; SWEEP default "-b 128K -e 8M -f 4 -n 20 -w 3")
set -euo pipefail
usage="usage: lab/bench/coll_mpi_grid.sh OUT [REPS]"
out=${1:?$usage}
reps=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
tandem=${TANDEM:-$here/../../build/tandem}
ops=${OPS:-psum,all_gather,psum_scatter,all_to_all,ragged_all_to_all}
read -ra sweep <<<"${SWEEP:--b 128K -e 8M -f 4 -n 20 -w 3}"
fail() { echo "error: $1" >&2; echo "  hint: $2" >&2; exit 4; }
[[ -x $tandem ]] || fail "$tandem is not built" "cmake --build build --target tandem (or set TANDEM)"
[[ $reps =~ ^[1-9][0-9]*$ ]] || fail "REPS must be a positive count, not '$reps'" "$usage"
mkdir -p "$out" 2>/dev/null && [[ -w $out ]] || fail "cannot write to $out" "give a folder you can write"
command -v ompi_info >/dev/null || fail "ompi_info is not on PATH" "the grid needs Open MPI (apt-get install openmpi-bin)"
log() { echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg): $*" | tee -a "$out/run.log" >&2; }
launch() { TANDEM=$tandem "$here/../../runners/launch/mpirun.sh" 2 collectives --interleave 1 --inplace out "$@"; }

# Which raw call each op times, from a one-iteration probe (the op table's own words).
launch -b 64K -e 64K -n 1 -w 0 --ops "$ops" --out "$out/probe" > "$out/probe.log" 2>&1 ||
  { tail -5 "$out/probe.log" >&2; fail "the probe sweep of --ops $ops failed" "tandem collectives --help lists the ops"; }
declare -A call algs
while read -r op c; do call[$op]=$c; done < <(sed -nE 's/^# ([a-z_]+): raw MPI_([A-Za-z_]+) on the same buffers.*/\1 \L\2/p' "$out/probe.log" | sort -u)
rm -rf "$out/probe" "$out/probe.log"
# ompi_info's valid values of one parameter, "id:name" each, 0 ("ignore") left out.
valid() { ompi_info --param "$1" "$2" --level 9 | grep -A3 "parameter \"$3\"" | sed -n 's/.*Valid values: //p' | head -1 |
          tr -d '"' | tr ',' '\n' | sed 's/^ *//' | grep -v '^0:'; }
kmax=0
for op in "${!call[@]}"; do
  algs[$op]=$(valid coll tuned "coll_tuned_${call[$op]}_algorithm" | tr '\n' ' ')
  n=$(wc -w <<<"${algs[$op]}"); (( n > kmax )) && kmax=$n
done
read -ra mechs <<<"${MECHANISMS:-$(valid btl vader btl_vader_single_copy_mechanism | cut -d: -f2 | tr '\n' ' ')}"
configs=()
for m in "${mechs[@]}"; do for ((k = 0; k <= kmax; ++k)); do configs+=("$m-a$k"); done; done
log "start; $(ompi_info | sed -n 's/^ *Open MPI: //p' | head -1); ops ${!call[*]}; mechanisms ${mechs[*]}; $kmax algorithm indices; reps $reps"

run_config() {  # round, "mechanism-aK"
  local dir=$out/r$1/$2 m=${2%-a*} k=${2##*-a} mca=() runops=() json=() op id list
  mca=(OMPI_MCA_btl_vader_single_copy_mechanism="$m")
  (( k > 0 )) && mca+=(OMPI_MCA_coll_tuned_use_dynamic_rules=1)
  for op in "${!call[@]}"; do
    id=0:default
    if (( k > 0 )); then read -ra list <<<"${algs[$op]}"; id=${list[k - 1]:-}; fi
    [[ -n $id ]] || continue
    runops+=("$op"); json+=("\"$op\": \"${id#*:}\"")
    (( k > 0 )) && mca+=("OMPI_MCA_coll_tuned_${call[$op]}_algorithm=${id%%:*}")
  done
  (( ${#runops[@]} )) || return 0
  mkdir -p "$dir"
  if ! (export "${mca[@]}"; launch "${sweep[@]}" --ops "$(IFS=,; echo "${runops[*]}")" --out "$dir") > "$dir/sweep.log" 2>&1; then
    log "round $1 $2: the run failed, skipped (its log: $dir/sweep.log)"; return 0
  fi
  printf '{"single_copy": "%s", "algorithms": {%s}, "mca": "%s"}\n' "$m" "$(IFS=,; echo "${json[*]}")" "${mca[*]}" > "$dir/config.json"
  gzip -f "$dir/records.json"; rm -f "$dir/benchmark.json" "$dir/sweep.log"
}
for ((r = 1; r <= reps; ++r)); do
  log "round $r"
  n=${#configs[@]}
  for ((i = 0; i < n; ++i)); do run_config "$r" "${configs[(i + (r - 1) * n / reps) % n]}"; done
done
log "end"
