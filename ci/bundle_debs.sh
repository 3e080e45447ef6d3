#!/usr/bin/env bash
# Downloads the Debian packages tandem needs to build and run, with the libraries they pull in that a CUDA/PyTorch image
# usually lacks, into .deps/debs (ignored by git). Carry that folder to an air-gapped machine (a GPU node, a cluster)
# and run ci/unpack_debs.sh there. The machine running this needs apt access; the target needs none.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/.deps/debs}
mkdir -p "$dest"
# The packages: ci/bundle_packages.txt (one table, which ci/gpu_preflight.sh checks too).
mapfile -t wanted < <(grep -v '^#' "$root/ci/bundle_packages.txt" | grep -v '^\s*$')
cd "$dest"
apt-get update -qq
for p in "${wanted[@]}"; do
  apt-get download "$p" 2>/dev/null || echo "bundle: skipped $p (not available here)"
done
ls -1 "$dest"/*.deb | wc -l | xargs echo "bundle: .deb files in $dest:"
du -sh "$dest"
