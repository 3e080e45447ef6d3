#!/usr/bin/env bash
# Runs inside the fresh root made by ci/fresh_root.sh (copied to /etc/fresh-root/inside.sh):
# says what the root is, then runs the given command in the clone at /src/tandem.
set -euo pipefail
. /etc/os-release
echo "fresh-root: inside $PRETTY_NAME, $(dpkg-query -W | wc -l) packages, python3: $(command -v python3 || echo none)," \
  "/usr/local/cuda: $(/usr/local/cuda/bin/nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo 'no nvcc')"
cd /src/tandem
exec bash -o pipefail -ec "$1"
