#!/usr/bin/env bash
# Fails if reference/ includes anything from engine/ (DESIGN.md: the oracle is independent).
# Checks both the include lines and the headers the compiler actually pulled in.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
if grep -R -n -E '#include *[<"](\.\./)*engine/' "$root/reference"; then
  echo "FAIL: reference/ includes engine/ headers (above); the oracle must stay independent" >&2
  exit 1
fi
for f in "$root"/reference/*.cc; do
  deps=$(g++ -std=c++20 -I"$root" -MM "$f" 2>/dev/null || true)
  if echo "$deps" | grep -q "/engine/"; then
    echo "FAIL: $f pulls in engine/ headers transitively" >&2
    exit 1
  fi
done
echo "reference/ is independent of engine/"
