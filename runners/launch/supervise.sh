# shellcheck shell=bash
# Sourced by mpirun.sh and srun.sh: `supervise LAUNCHER ARGS...` runs the launcher and maps how
# it ended onto tandem's exit-code contract (common/exit_codes.h).
# - A rank's job watchdog ends its rank with exit 5, but a launcher can then hang: mpirun
#   whose host lost its link waits forever in its abort for a daemon it cannot reach. After
#   tandem's "[tandem watchdog] … aborting the job" line on stderr the launcher gets
#   TANDEM_LAUNCH_GRACE seconds (default 15) to end; then it is sent TERM, and KILL 5 s later.
# - A launcher's own ending (a rank killed by a signal: 128+N; Open MPI losing a daemon: 205,
#   213, …) is no verdict on the numerics: exit 5, with what the launcher said. Codes 0–6 are
#   tandem's own and pass through — except when the launcher said it could not place the job
#   at all (a request larger than the hosts or partition): its exit 1 would read as a wrong
#   result, so it becomes exit 4 (bad input), the request is what to fix.
supervise() {
  local state rc
  state=$(mktemp -d "${TMPDIR:-/tmp}/tandem-launch.XXXXXX")
  "$@" 2> >(watch_for_abort "$state" "${TANDEM_LAUNCH_GRACE:-15}" >&2) &
  echo $! > "$state/pid"
  rc=0
  wait $! || rc=$?
  [[ -s $state/killer ]] && kill "$(cat "$state/killer")" 2>/dev/null
  # The watcher reads the launcher's last lines after it ended: wait (≤ 1 s) for it to finish.
  for _ in $(seq 1 50); do [[ -e $state/eof ]] && break; sleep 0.02; done
  if [[ -e $state/unplaceable && $rc != 0 ]]; then
    echo "error: $1 could not place the job (its message above): bad input (exit 4), not a test result" >&2
    echo "  hint: ask for at most the nodes and slots there are (sinfo -N; a hostfile's slots)" >&2
    rc=4
  elif [[ -e $state/killed ]]; then
    echo "error: $1 was still running ${TANDEM_LAUNCH_GRACE:-15} s after a rank's watchdog aborted the job: killed it" >&2
    echo "  hint: a host or link is down (see the watchdog line above); its daemons end when their TCP connection does" >&2
    rc=5
  elif (( rc > 6 )); then
    echo "error: $1 ended the job with exit $rc$( ((rc > 128 && rc <= 192)) && echo " (signal $((rc - 128)) in a rank or the launcher)")," \
         "not a tandem verdict: infrastructure error (exit 5)" >&2
    echo "  hint: the launcher's message above names the rank or host; a rank that ran to its end exits 0–6" >&2
    rc=5
  fi
  rm -rf "$state"
  return "$rc"
}

# What srun and mpirun print when the job cannot be placed on the machines at all.
UNPLACEABLE='Unable to allocate resources|Requested node configuration is not available|There are not enough slots available'

# Passes the launcher's stderr through; at the first watchdog abort, arms the grace timer.
watch_for_abort() {
  local state=$1 grace=$2 line armed=""
  while IFS= read -r line; do
    printf '%s\n' "$line"
    [[ ! $line =~ $UNPLACEABLE ]] || touch "$state/unplaceable"
    if [[ -z $armed && $line == *"[tandem watchdog]"*"aborting the job"* ]]; then
      armed=1
      ( sleep "$grace"
        pid=$(cat "$state/pid")
        kill -0 "$pid" 2>/dev/null || exit 0
        touch "$state/killed"; kill -TERM "$pid"; sleep 5; kill -KILL "$pid" 2>/dev/null ) &
      echo $! > "$state/killer"
    fi
  done
  touch "$state/eof"
}
