# Sourced by the ctest scripts of the JAX oracles here (*_vs_jax_test.sh), after they set $tandem
# (and $python, python3 by default): exits 77 (ctest SKIP) when JAX is not installed for $python;
# else gives $here (this folder), a scratch folder $work (removed on exit), and
#   fail MESSAGE                   exits 1, printing FAIL: MESSAGE
#   judge ORACLE NAME              runs ORACLE (a .py here) on the dump $work/NAME: output in $work/NAME.log, exit in $rc
#   dump NAME FILTER               `tandem dump-programs` of FILTER's quick cases to $work/NAME: exit 0 (with a fault
#                                  injected 5 too: tandem's own checks stopped a case, in index.json, a FAIL of the oracle)
#   judge_clean ORACLE FILTER TAIL dumps FILTER's cases to $work/clean; ORACLE must pass them (its last TAIL lines shown)
#   caught ORACLE FAULT FILTER     dumps FILTER's cases with TANDEM_INJECT=FAULT; ORACLE must fail them (a check
#                                  that cannot fail proves nothing)
python=${python:-python3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$python" -c 'import jax' 2> /dev/null || { echo "SKIP: JAX is not installed for $python (python3 -m pip install jax)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
judge() { "$python" "$here/$1" "$work/$2" > "$work/$2.log" 2>&1; rc=$?; }
dump() {
  "$tandem" dump-programs --profile quick --filter "$2" "$work/$1" > "$work/$1.dump.log" 2>&1; local got=$?
  [ "$got" = 0 ] || { [ -n "${TANDEM_INJECT:-}" ] && [ "$got" = 5 ]; } \
    || { tail -5 "$work/$1.dump.log"; fail "dump-programs ${TANDEM_INJECT:+with $TANDEM_INJECT }exited $got"; }
}
judge_clean() {
  dump clean "$2"
  judge "$1" clean; tail -"$3" "$work/clean.log"
  [ "$rc" = 0 ] || { grep -A2 -E '^(FAIL|XPASS)' "$work/clean.log" | head -60; fail "$1 exited $rc on the clean run"; }
}
caught() {
  TANDEM_INJECT=$2 dump "$2" "$3"
  judge "$1" "$2"
  [ "$rc" = 1 ] && grep -q '^FAIL' "$work/$2.log" || { cat "$work/$2.log"; fail "fault $2 escaped the oracle (exit $rc)"; }
  echo "caught $2: $(grep -c '^FAIL' "$work/$2.log") failing items"
}
