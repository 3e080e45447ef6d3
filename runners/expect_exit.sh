# Sourced by the CLI contract tests (cli_contract_test.sh, cli/faults_test.sh): a scratch
# folder $out (removed on exit), a failure flag $fail, and
#   expect CODE DESCRIPTION -- COMMAND...
# which runs COMMAND with its stdout and stderr in $out/stdout and $out/stderr, and marks a
# failure (printing the head of stderr) when its exit code is not CODE.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
expect() {
  local want=$1 what=$2; shift 3
  "$@" >"$out/stdout" 2>"$out/stderr"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: exit $got, want $want"; head -5 "$out/stderr"; fail=1
  else
    echo "ok: $what (exit $got)"
  fi
}
