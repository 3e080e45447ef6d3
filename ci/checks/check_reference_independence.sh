#!/usr/bin/env bash
# Fails if reference/ includes anything from engine/ or the layers above it (bridge/, harness/,
# suites/, runners/): DESIGN.md, the oracle is independent, and engine and reference meet only
# in bridge/. Checks both the include lines and the headers the compiler actually pulled in.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
above='(engine|bridge|harness|suites|runners)/'
if grep -R -n -E "#include *[<\"](\.\./)*$above" "$root/reference"; then
  echo "FAIL: reference/ includes engine/ or bridge/ headers (above); the oracle must stay independent" >&2
  exit 1
fi
for f in "$root"/reference/*.cc; do
  deps=$(g++ -std=c++20 -I"$root" -MM "$f" 2>/dev/null || true)
  if echo "$deps" | sed "s#$root/##g" | grep -q -E "(^|[ /])$above"; then
    echo "FAIL: $f pulls in engine/ or bridge/ headers transitively" >&2
    exit 1
  fi
done
echo "reference/ is independent of engine/"
