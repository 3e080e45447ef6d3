# The step machinery of ci/gpu_validate.sh (sourced, not run): every step, a shell function or a program, runs under one
# deadline guard, writes logs/<step>.log and one row of steps.tsv, and the summary is rebuilt (and handed to
# GPU_AFTER_PHASE) after every phase, so a call killed at its limit has already left every earlier phase's results where
# they come back. Needs: $out (the output folder), $root (the repository).

# The time now, in epoch seconds: TANDEM_CLOCK (a command printing them) when set, so that a
# test decides when the deadline falls instead of the machine's load deciding it.
now_s() { if [ -n "${TANDEM_CLOCK:-}" ]; then $TANDEM_CLOCK; else date +%s; fi; }

# record NAME RESULT RC SECONDS NOTE: one row of steps.tsv (replacing an older row of NAME),
# the phase it belongs to last.
record() {
  grep -v -P "^\Q$1\E\t" "$out/steps.tsv" >"$out/steps.tsv.new" || true
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "${current_phase:-}" >>"$out/steps.tsv.new"
  mv "$out/steps.tsv.new" "$out/steps.tsv"
  echo "gpu_validate: $1: $2 (rc $3, $4 s) $5"
}
not_run() { record "$1" "not run" - 0 "$2"; }  # a step whose tool is absent (not a failure)
cut_phase() { echo "$current_phase" >>"$out/phases_cut"; }

# Seconds a step may run: STEP_TIMEOUT, cut to what is left before DEADLINE (0 or less once
# the deadline has passed: never hand that to timeout, for which 0 means no limit).
step_limit() {
  local limit=${STEP_TIMEOUT:-480} now; now=$(now_s)
  [ -z "${DEADLINE:-}" ] || limit=$(( limit < DEADLINE - now ? limit : DEADLINE - now ))
  echo "$limit"
}
# in_time NAME: prints the step's limit, or records NAME "not run: out of time" (its phase cut) and fails when under
# GPU_STEP_MIN_S (default 30) seconds are left: a step past the deadline never starts.
in_time() {
  local limit; limit=$(step_limit)
  if [ "$limit" -lt "${GPU_STEP_MIN_S:-30}" ]; then
    not_run "$1" "out of time: the call's deadline is ${limit} s away" >&2; cut_phase; return 3
  fi
  echo "$limit"
}

# The line of a log that says why: the first "error:", else the last non-empty line (one line, no |).
why_failed() {
  { grep -m1 -E "^error:|FAILED|Error" "$1" || grep -v '^\s*$' "$1" | tail -1; } | tr '|\t' '/ ' | cut -c1-160
}

# step NAME CMD...: runs CMD into logs/NAME.log under the deadline guard and records pass or
# FAIL. CMD may be a shell function: it runs in a child bash (exported, with the variables it
# reads) so that `timeout` bounds it like any program. step_cap=S (set for the call) lowers
# the limit for a step known to be short. A passing step's note is its log's last "note: " line.
step() {
  local name=$1; shift
  local t0=$SECONDS rc limit note=""
  limit=$(in_time "$name") || return 3
  [ -z "${step_cap:-}" ] || [ "$step_cap" -ge "$limit" ] || limit=$step_cap
  if declare -F "$1" >/dev/null; then export -f "$1"; set -- bash -c '"$@"' "$name" "$@"; fi
  timeout -k 10 "$limit" "$@" >"$out/logs/$name.log" 2>&1
  rc=$?
  if [ $rc = 0 ]; then
    note=$(sed -n 's/^note: //p' "$out/logs/$name.log" | tail -1 | tr '|\t' '/ ' | cut -c1-160)
    record "$name" pass 0 $((SECONDS - t0)) "$note"
    return 0
  fi
  note=$(why_failed "$out/logs/$name.log")
  if [ $rc = 124 ] || [ $rc = 137 ]; then note="timed out after $limit s"; cut_phase; fi
  record "$name" FAIL $rc $((SECONDS - t0)) "$note"
  return $rc
}

# summary.md, rebuilt from every row so far (after each phase and at the end).
write_summary() {
  local f gpu
  gpu=$(timeout 20 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
  {
    echo "# gpu_validate summary"
    echo
    echo "$(date -u +%FT%TZ), commit $(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo "${TANDEM_COMMIT:-unknown}"), ${gpu:-no nvidia-smi}"
    echo
    echo "| phase | step | result | rc | seconds | note |"
    echo "|---|---|---|---|---|---|"
    awk -F'\t' '{printf "| %s | %s | %s | %s | %s | %s |\n", $6, $1, $2, $3, $4, $5}' "$out/steps.tsv"
    for f in "$out"/logs/*_as_cpu.log "$out"/logs/*_checked.log "$out"/logs/*no_skips.log; do
      [ -f "$f" ] && { echo; echo "## $(basename "$f" .log)"; echo '```'; head -40 "$f"; echo '```'; }
    done
    for f in "$out"/perf/dot/summary.md "$out"/perf/lstm/summary.md "$out"/perf/lstm_vs_torch.md "$out"/lstm_ratios.md "$out"/sanitizer.md; do
      [ -f "$f" ] && { echo; echo "## ${f#"$out"/}"; echo; sed 's/^# /### /' "$f"; }
    done
  } >"$out/summary.md.new"
  mv "$out/summary.md.new" "$out/summary.md"
}

# After a phase: the summary, then GPU_AFTER_PHASE (ci/gpu_session.sh copies what exists to
# $OUT with it), bounded so that a stuck copy cannot take the call.
phase_done() {
  write_summary
  [ -z "${GPU_AFTER_PHASE:-}" ] || timeout -k 5 60 bash -c "$GPU_AFTER_PHASE" >>"$out/logs/after_phase.log" 2>&1 ||
    echo "gpu_validate: after phase $1: '$GPU_AFTER_PHASE' failed (logs/after_phase.log)"
}
