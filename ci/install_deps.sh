#!/usr/bin/env bash
# Installs whatever of ci/deps.txt is missing (Debian 12, as root or with sudo), then the project's Python environment,
# .venv (ci/python_env.sh). Idempotent: a machine that has everything runs no apt-get at all, and neither does one given
# an unpacked offline bundle (TANDEM_OFFLINE_PREFIX, see ci/unpack_debs.sh). In a log, apt's output goes to
# results/logs/ (ci/quiet.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/quiet.sh"
logs=$(cd "$here/.." && pwd)/results/logs
if [ -n "${TANDEM_OFFLINE_PREFIX:-}" ]; then
  echo "deps: offline prefix $TANDEM_OFFLINE_PREFIX, no apt-get"
  exit 0
fi
if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
  echo "error: no dpkg/apt-get here to install ci/deps.txt" >&2
  echo "  hint: carry an offline bundle (ci/bundle_debs.sh), unpack it (ci/unpack_debs.sh) and set TANDEM_OFFLINE_PREFIX" >&2
  exit 5
fi
mapfile -t pkgs < <(grep -v -E '^\s*(#|$)' "$here/deps.txt")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#pkgs[@]} packages present"
else
  echo "deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  quietly "deps: apt-get update" "$logs/apt-update.log" '^(E|W):' $sudo apt-get update -qq || {
    echo "error: apt-get update failed (offline?)" >&2
    echo "  hint: use the offline bundle: ci/unpack_debs.sh, then TANDEM_OFFLINE_PREFIX=.deps/prefix" >&2
    exit 5
  }
  # Recommends are not installed: whatever tandem needs of them is listed in deps.txt itself.
  quietly "deps: apt-get install of ${#missing[@]} packages" "$logs/apt-install.log" '^E:' \
    env DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
"$here/python_env.sh"
