#!/usr/bin/env bash
# One writer per output folder: while a sweep (`tandem collectives`) or a `tandem run` holds its --out, every other
# writer into that folder — another sweep, a run, collectives-dump, dump-programs, fuzz, import, merge — is refused with
# exit 4, the lock message and a hint, and the holder still finishes with all its records. The holder is caught holding
# the flock through /proc/locks (taking the lock to test it would race the holder) and stopped (SIGSTOP) while the
# others try, so the test waits for no timing. usage: out_dir_lock_test.sh TANDEM
set -uo pipefail
tandem=${1:?usage: out_dir_lock_test.sh TANDEM}
work=$(mktemp -d)
hpid= lpid=
trap '[ -z "$lpid" ] || kill -KILL "$lpid" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work" || exit 1

# Starts "$@" in the background and returns once it holds the flock of folder $dir, stopped.
hold() {
  mkdir -p "$dir"
  local ino
  ino=$(stat -c %i "$dir")
  "$@" > holder.log 2>&1 &
  hpid=$!
  # As long as the holder lives (a loaded runner may take many seconds to start it), not a fixed
  # count of polls; a holder that never locks and never ends is the ctest TIMEOUT's to stop.
  while :; do
    lpid=$(awk -v ino=":$ino" '$2 == "FLOCK" && $6 ~ ino "$" { print $5 }' /proc/locks)
    [ -n "$lpid" ] && kill -STOP "$lpid" && return 0
    kill -0 "$hpid" 2>/dev/null || { cat holder.log >&2; fail "$1 ended before it held $dir"; }
    sleep 0.01
  done
}

# Runs the intruder "$@"; it must be refused while the holder still runs.
refused() {
  "$@" > intruder.log 2>&1
  local rc=$?
  kill -0 "$hpid" 2>/dev/null || fail "the holder ended before '$*' was tried: make it run longer"
  [ $rc = 4 ] || { cat intruder.log >&2; fail "'$*' into a held folder: exit $rc, want 4"; }
  grep -q "another tandem run is writing to --out $dir" intruder.log && grep -q "hint:" intruder.log ||
    { cat intruder.log >&2; fail "'$*': no lock message with a hint"; }
}

# The holder, resumed: its exit 0 and its n records, none of them an intruder's.
intact() {
  kill -CONT "$lpid"
  lpid=
  wait "$hpid"
  local rc=$?
  hpid=
  [ $rc = 0 ] || { cat holder.log >&2; fail "the holder exited $rc"; }
  python3 - "$dir/records.json" "$1" "$2" <<'PY' || fail "the holder's records in $dir"
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
assert len(recs) == int(sys.argv[2]) and all(r["case"].startswith(sys.argv[3]) for r in recs), [r["case"] for r in recs]
PY
  [ ! -e "$dir/manifest.json" ] && [ ! -e "$dir/index.json" ] || fail "a refused dump wrote into $dir"
}

sweep() { "$tandem" collectives -b 16M -e 16M -n 2 --raw 0 --inplace out --out "$dir" "$@"; }
dot_case='^dot/B:1/M:4/K:1/N:3/in:f64/alg:DEFAULT$'
run() { "$tandem" run --suite dot --filter "$dot_case" -n 1 --out "$dir" "$@"; }

# Every other writer of an --out is refused while a holder has it.
refused_by_every_writer() {
  refused sweep -w 0
  refused run -w 0
  refused "$tandem" collectives-dump --ops psum --out "$dir"
  refused "$tandem" dump-programs --suite vmap "$dir"
  refused "$tandem" fuzz --programs 1 --out "$dir"
  refused "$tandem" import sin_mod:f --arg 'f32[3]' --out "$dir"
}
printf 'import jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.sin(x)\n' > sin_mod.py  # for `tandem import`

dir=$work/r
hold run -w 200000
refused_by_every_writer
intact 1 dot/

dir=$work/s
hold sweep -w 300
refused_by_every_writer
refused "$tandem" merge "$work/r" -o "$dir"
intact 1 collectives/sweep/op:psum/

echo "PASS: sweep and run each hold --out against sweep, run, collectives-dump, dump-programs, fuzz, import (and merge)"
