#!/usr/bin/env bash
# Unpacks every .deb of a bundle (ci/bundle_debs.sh) into a prefix without dpkg's database or root, makes the links
# Debian's alternatives and postinst scripts would have made (OpenBLAS as libblas/libopenblas with its three headers,
# mpicxx/mpirun for the .openmpi names, the MPI include and library links), writes <prefix>/env.sh and checks that every
# unpacked library resolves. Then:
#   . <prefix>/env.sh        # PATH, LD_LIBRARY_PATH, OPAL_PREFIX, CMAKE_PREFIX_PATH, ...
#   ci/build.sh              # or any ci/*.sh: they see TANDEM_OFFLINE_PREFIX and skip apt-get
#   ci/unpack_debs.sh [DEBS_DIR] [PREFIX]     (defaults: .deps/debs, .deps/prefix)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
debs=${1:-$root/.deps/debs}
prefix=${2:-$root/.deps/prefix}
compgen -G "$debs/*.deb" >/dev/null || { echo "unpack: no .deb files in $debs (run ci/bundle_debs.sh where apt works)" >&2; exit 5; }
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
# dpkg-deb where there is one; else Python (a .deb is an ar archive holding data.tar.*).
extract() {
  if command -v dpkg-deb >/dev/null; then dpkg-deb -x "$1" "$2"; else python3 - "$1" "$2" <<'EOF'
import io, sys, tarfile
blob, dest = open(sys.argv[1], "rb").read(), sys.argv[2]
assert blob.startswith(b"!<arch>\n"), f"{sys.argv[1]}: not a .deb"
pos = 8
while pos < len(blob):
    name, size = blob[pos:pos + 16].decode().strip().rstrip("/"), int(blob[pos + 48:pos + 58])
    if name.startswith("data.tar"):
        with tarfile.open(fileobj=io.BytesIO(blob[pos + 60:pos + 60 + size])) as t:
            t.extractall(dest, **({"filter": "fully_trusted"} if hasattr(tarfile, "fully_trusted_filter") else {}))
        break
    pos += 60 + size + size % 2
else:
    sys.exit(f"{sys.argv[1]}: no data.tar member")
EOF
  fi
}
n=0
for f in "$debs"/*.deb; do extract "$f" "$prefix"; n=$((n + 1)); done
lib="$prefix/usr/lib/x86_64-linux-gnu"
# The compiler's own runtime libraries: the machine's copy wins where it has one. The bundle's
# (Debian 12, GCC 12) would come first on LD_LIBRARY_PATH and hide a newer one that binaries
# built there with a newer g++ need (CMake warned of Ubuntu 24.04's libgomp hidden so in the GPU rehearsal).
for l in libgomp.so.1; do
  if ldconfig -p 2>/dev/null | grep -q "^\s*$l "; then rm -f "$lib/$l" "$lib/$l".*; fi
done
inc="$prefix/usr/include/x86_64-linux-gnu"

link() {  # link TARGET NAME: NAME -> TARGET (relative), only when TARGET exists there
  local dir; dir=$(dirname "$2")
  [ -e "$dir/$1" ] && ln -sfn "$1" "$2"
  return 0
}
# OpenBLAS: libraries and all its headers (cblas.h includes openblas_config.h; f77blas.h too).
for l in libopenblas.so libopenblas.so.0 libblas.so libblas.so.3 liblapack.so liblapack.so.3; do
  link "openblas-pthread/$l" "$lib/$l"
done
for h in "$inc"/openblas-pthread/*.h; do
  [ -e "$h" ] && link "openblas-pthread/$(basename "$h")" "$inc/$(basename "$h")"
done
# Open MPI: the unsuffixed tool names (FindMPI looks for mpicxx and mpiexec), and mpi.h /
# libmpi.so where the alternatives put them.
for b in "$prefix"/usr/bin/*.openmpi; do
  [ -e "$b" ] && link "$(basename "$b")" "${b%.openmpi}"
done
link ../../lib/x86_64-linux-gnu/openmpi/include "$inc/mpi"
for l in libmpi.so libmpi_cxx.so; do link "openmpi/lib/$l" "$lib/$l"; done

cat >"$prefix/env.sh" <<'EOF'
# Sourced (`. env.sh`): makes the unpacked bundle next to this file the place tandem's build
# and tests find their dependencies. Written by ci/unpack_debs.sh.
_p=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
_l=$_p/usr/lib/x86_64-linux-gnu
export TANDEM_OFFLINE_PREFIX=$_p
export PATH=$_p/usr/bin${PATH:+:$PATH}
# libnl-3 lands in /lib/x86_64-linux-gnu (not /usr/lib); Open MPI's and OpenBLAS's own dirs too.
export LD_LIBRARY_PATH=$_l:$_p/lib/x86_64-linux-gnu:$_l/openblas-pthread:$_l/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CMAKE_PREFIX_PATH=$_p/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
# Open MPI relocates every compiled-in path (help files, plugins, wrapper data) under OPAL_PREFIX;
# PMIx does not, so its plugins (pcompress, ...) are named by path.
export OPAL_PREFIX=$_p/usr
export PMIX_MCA_mca_base_component_path=$_l/pmix2/lib/pmix
unset _p _l
EOF
# Open MPI without ssh/rsh (the GPU machine): the one-host launcher, after PATH is set above.
cat "$root/runners/launch/mpi_local.sh" >>"$prefix/env.sh"

# is_elf FILE: an ELF object, the only kind ldd answers (on the bundle's Perl and shell scripts it exits 1).
is_elf() { [ "$(head -c4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = 177ELF ]; }
# Every unpacked shared library and MPI tool must resolve with env.sh alone: prints "file: library" for each that does
# not. No exit status may leak out of this pipeline under pipefail (it once made the script exit 1 whenever find
# happened to list a script last): scripts are skipped, and ldd's and find's statuses are dropped on purpose.
unresolved_libraries() {
  (. "$prefix/env.sh"
    { find "$lib" "$prefix/lib" "$prefix/usr/bin" -maxdepth 2 -type f \( -name '*.so*' -o -perm -u+x \) 2>/dev/null || true; } |
      while read -r f; do
        is_elf "$f" || continue
        { ldd "$f" 2>/dev/null || true; } | awk -v f="${f#"$prefix"/}" '/not found/ {print f ": " $1}'
      done) | sort -u
}
missing=$(unresolved_libraries)
echo "unpack: $n packages into $prefix"
if [ -n "$missing" ]; then
  echo "unpack: WARNING: libraries the bundle does not provide and this machine lacks:"
  echo "$missing" | sed 's/^/  /'
fi
echo "unpack: now run: . $prefix/env.sh"
