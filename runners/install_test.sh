#!/usr/bin/env bash
# `cmake --install` gives a usable tandem: installs BUILD into a temporary prefix, then the installed P/bin/tandem must
# print --version and the Python tools' real help, run them from P/share/tandem (not from the source tree), and report
# on the committed fixture records (which reads record.schema.json from the installed package).
#   runners/install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?usage: install_test.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: install_test.sh BUILD_DIR SOURCE_DIR}
p=$(mktemp -d)
trap 'rm -rf "$p"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$p/prefix" >/dev/null
t=$p/prefix/bin/tandem
[[ -x $t ]] || fail "no $t after cmake --install"
[[ -f $p/prefix/share/tandem/reports/record.schema.json ]] || fail "record.schema.json not installed"
[[ ! -e $p/prefix/share/tandem/reports/tests ]] || fail "the tests were installed"
"$t" --version | grep -Eq '^tandem [0-9]+\.[0-9]+\.[0-9]+ \(git ' || fail "--version: $("$t" --version)"
for sub in report gate history baseline; do
  out=$("$t" "$sub" --help) || fail "tandem $sub --help exited $?"
  grep -q "^usage: tandem $sub" <<<"$out" || fail "tandem $sub --help is not the Python tool's help: $out"
done
# Which copy of the tools runs: a python3 wrapper prints the PYTHONPATH tandem hands it.
printf '#!/bin/sh\necho "PYTHONPATH=$PYTHONPATH" >&2\nexec python3 "$@"\n' > "$p/py"
chmod +x "$p/py"
err=$(TANDEM_PYTHON=$p/py "$t" report "$src/reports/tests/fixtures/scan_hoist.json" -o "$p/rep" 2>&1 >/dev/null) ||
  fail "installed tandem report failed: $err"
grep -q "^PYTHONPATH=$p/prefix/share/tandem\(:\|$\)" <<<"$err" || fail "ran the tools from elsewhere: $err"
[[ -s $p/rep/index.html && -s $p/rep/scan_hoist_speedup_memory.png ]] || fail "no report written"
echo "install_prefix: ok ($t)"
