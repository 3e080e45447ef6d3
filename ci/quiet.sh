# Sourced by the ci/*.sh steps whose tools talk a lot (apt-get, pip, CMake's configure): on a
# terminal (or VERBOSE=1) the tool's own output; in a log, its output goes to LOGFILE, the log
# shows the lines matching KEEP (grep -E), one result line, and on failure the exit and
# LOGFILE's last 40 lines: a passing CI log stays short, a failing one still says why.
# usage: quietly LABEL LOGFILE KEEP COMMAND...   (returns the command's exit)
quietly() {
  local label=$1 log=$2 keep=$3 t0=$SECONDS rc; shift 3
  if [ -t 1 ] || [ "${VERBOSE:-0}" = 1 ]; then "$@"; return; fi
  mkdir -p "$(dirname "$log")"
  # The exit through a file: the callers run under `set -e -o pipefail`, and a failing command
  # inside the pipeline would end them before the log's tail is shown.
  { "$@" && echo 0 >"$log.exit" || echo $? >"$log.exit"; } 2>&1 | tee "$log" | { grep --line-buffered -E "$keep" || true; }
  rc=$(cat "$log.exit"); rm -f "$log.exit"
  if [ "$rc" != 0 ]; then
    echo "$label: FAILED (exit $rc) after $((SECONDS - t0)) s; the last lines of $log:" >&2
    tail -40 "$log" >&2
    return "$rc"
  fi
  echo "$label: done in $((SECONDS - t0)) s (log: $log)"
}
