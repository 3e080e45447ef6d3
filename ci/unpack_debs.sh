#!/usr/bin/env bash
# Unpacks every .deb of a bundle (ci/bundle_debs.sh) into a prefix without dpkg's database
# or root, and fixes the symlinks Debian's alternatives would have made. Then build with
#   ci/build.sh -DCMAKE_PREFIX_PATH=<prefix>/usr
# and run with LD_LIBRARY_PATH=<prefix>/usr/lib/x86_64-linux-gnu:<prefix>/usr/lib/x86_64-linux-gnu/openblas-pthread
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
debs=${1:-$root/.deps/debs}
prefix=${2:-$root/.deps/prefix}
mkdir -p "$prefix"
n=0
for f in "$debs"/*.deb; do dpkg -x "$f" "$prefix"; n=$((n + 1)); done
lib="$prefix/usr/lib/x86_64-linux-gnu"
# What update-alternatives links on a normal install: libblas/liblapack/cblas.h to OpenBLAS.
if [ -d "$lib/openblas-pthread" ]; then
  for l in libblas.so libblas.so.3 liblapack.so liblapack.so.3; do
    [ -e "$lib/openblas-pthread/$l" ] && ln -sf "openblas-pthread/$l" "$lib/$l"
  done
  [ -e "$prefix/usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h" ] &&
    ln -sf openblas-pthread/cblas.h "$prefix/usr/include/x86_64-linux-gnu/cblas.h"
fi
echo "unpacked $n packages into $prefix"
echo "export LD_LIBRARY_PATH=$lib:$lib/openblas-pthread:$lib/openmpi/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
echo "export PATH=$prefix/usr/bin:\$PATH OPAL_PREFIX=$prefix/usr/lib/x86_64-linux-gnu/openmpi"
