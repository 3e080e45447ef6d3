# shellcheck shell=bash
# MPI for ci/aarch64.sh (sourced by it): Open MPI on arm64 in an arm64 Debian root, because libopenmpi-dev:arm64 cannot
# sit beside the amd64 Open MPI (apt would remove openmpi-bin and Slurm). The root is made by mmdebstrap, its packages'
# scripts run under QEMU; the cross build takes mpi.h and libmpi from it, and the MPI tests run inside it (chroot):
# mpirun, its daemon and every rank are arm64 processes under QEMU through binfmt_misc. A chroot needs a QEMU the kernel
# opens once at registration (binfmt flag F) and that needs no library of the host: the static qemu-aarch64 of
# qemu-user-static, unpacked, not installed (installing it would remove qemu-user-binfmt). Uses: $build (the arm64 build
# directory), $root (the source tree).

mpi_root=$build/arm64-root
qemu_static=$build/qemu-static/usr/bin/qemu-aarch64-static
# What the root holds: Open MPI (mpirun, its headers and libmpi) and the arm64 libraries tandem
# and its tests load at run time (the same Debian versions the cross build linked, from multiarch).
mpi_root_packages=openmpi-bin,libopenmpi-dev,libopenblas0,libdnnl2,libblis4,libre2-9,libbenchmark1debian,libsqlite3-0,libgomp1,libubsan1,procps

# The static QEMU, registered for arm64 ELF files with flags O (credentials), P (argv[0] kept)
# and F (opened now: usable inside a chroot), in place of an entry without F.
binfmt_static() {
  local entry=/proc/sys/fs/binfmt_misc/qemu-aarch64 conf=/usr/lib/binfmt.d/qemu-aarch64.conf
  grep -q "^flags: .*F" "$entry" 2>/dev/null && return 0
  if [ ! -x "$qemu_static" ]; then
    local tmp; tmp=$(mktemp -d)
    (cd "$tmp" && apt-get download qemu-user-static >/dev/null) || { rm -rf "$tmp"; return 5; }
    dpkg-deb -x "$tmp"/qemu-user-static_*.deb "$build/qemu-static" && rm -rf "$tmp" || return 5
  fi
  [ -e "$entry" ] && echo -1 > "$entry"
  cut -d: -f1-6 "$conf" | sed "s#\$#:$qemu_static:OPF#" > /proc/sys/fs/binfmt_misc/register || return 5
  echo "binfmt: qemu-aarch64 is now $qemu_static (flags OPF: usable in a chroot)"
}

# The arm64 root (≈ 700 MB; minutes, most of it the packages' scripts under QEMU).
step_mpiroot() {
  binfmt_static || { echo "error: no binfmt_misc entry with a static QEMU; hint: run the binfmt step as root" >&2; return 5; }
  [ -x "$mpi_root/usr/bin/mpirun" ] && { echo "mpiroot: $mpi_root has Open MPI"; return 0; }
  rm -rf "$mpi_root"
  mmdebstrap --mode=root --arch=arm64 --variant=apt --include="$mpi_root_packages" bookworm "$mpi_root" \
    http://deb.debian.org/debian >"$build/mmdebstrap.log" 2>&1 ||
    { tail -5 "$build/mmdebstrap.log" >&2; echo "error: mmdebstrap (log: $build/mmdebstrap.log)" >&2; return 5; }
  cp /etc/hosts "$mpi_root/etc/hosts"  # mmdebstrap writes none: Open MPI resolves localhost
}

# The CMake arguments of an MPI build against the root's Open MPI (none without the root): FindMPI
# cannot run the root's compiler wrapper for the host's paths, so the parts are named.
mpi_cmake_args() {
  local lib=$mpi_root/usr/lib/aarch64-linux-gnu
  if [ -f "$lib/libmpi.so.40" ]; then  # (libmpi.so points through /etc/alternatives: not here)
    printf '%s\n' -DTANDEM_WITH_MPI=ON "-DMPI_CXX_ADDITIONAL_INCLUDE_DIRS=$lib/openmpi/include" \
      -DMPI_CXX_SKIP_MPICXX=ON -DMPI_CXX_LIB_NAMES=mpi "-DMPI_mpi_LIBRARY=$lib/libmpi.so.40" -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun \
      "-DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath-link,$lib" "-DCMAKE_SHARED_LINKER_FLAGS=-Wl,-rpath-link,$lib"
  else
    echo -DTANDEM_WITH_MPI=OFF
  fi
}

# in_root CMD...: CMD inside the arm64 root, the source tree and the build at their own paths,
# /proc, /dev and /tmp the host's; the mounts live in a private namespace and end with CMD.
in_root() {
  unshare --mount --propagation private sh -c '
    r=$1; src=$2; bld=$3; shift 3
    mkdir -p "$r$src" "$r$bld" "$r/proc" "$r/dev" "$r/tmp"
    mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" && mount --bind /tmp "$r/tmp" &&
      mount --bind "$src" "$r$src" && mount --bind "$bld" "$r$bld" && exec chroot "$r" "$@"' \
    sh "$mpi_root" "$root" "$build" "$@"
}

# The MPI tests as ctest runs them (comm_mpi_test, collectives_mpi_test, vmap_mpi_test at 2 ranks; comm_local_ops_test),
# then the collectives suite's quick profile at 2 ranks, each under mpirun in the root. A step's logs: $build/mpi.*.log.
step_mpi() {
  [ -x "$mpi_root/usr/bin/mpirun" ] || { echo "error: no arm64 root with Open MPI; hint: ci/aarch64.sh mpiroot" >&2; return 5; }
  local mpirun=(mpirun --allow-run-as-root --oversubscribe -n 2 --mca btl self,tcp) fail=0 t bin t0
  local tests=(comm_local_ops_test comm_mpi_test collectives_mpi_test vmap_mpi_test)
  cmake --build "$build" -j "$jobs" --target tandem "${tests[@]}" -- -k 0 ||
    { echo "error: the MPI targets did not build (configured against the root's MPI? ci/aarch64.sh configure)" >&2; return 5; }
  for t in "${tests[@]}"; do
    bin=$(find "$build" -name "$t" -type f -perm -u+x | head -1)
    [ -n "$bin" ] || { echo "FAIL: $t not built (was the build configured with the root's MPI?)"; fail=1; continue; }
    t0=$SECONDS
    local run=("${mpirun[@]}" "$bin" --gtest_brief=1)
    [ "$t" = comm_local_ops_test ] && run=("$bin" --gtest_brief=1)
    if in_root timeout "${AARCH64_TEST_TIMEOUT:-3600}" "${run[@]}" >"$build/mpi.$t.log" 2>&1; then
      echo "ok: $t ($((SECONDS - t0)) s, $(grep -o '[0-9]* tests\? from [0-9]* test suites\? ran' "$build/mpi.$t.log" | head -1))"
    else
      echo "FAIL: $t (exit $?, $((SECONDS - t0)) s; $build/mpi.$t.log)"; grep -E '^\[  FAILED  \]' "$build/mpi.$t.log" | head; fail=1
    fi
  done
  t0=$SECONDS
  rm -rf "$build/mpi-quick"
  if in_root "${mpirun[@]}" "$build/tandem" run --suite collectives --profile quick --out "$build/mpi-quick" \
      >"$build/mpi.quick.log" 2>&1; then
    echo "ok: collectives quick at 2 ranks ($((SECONDS - t0)) s): $(tail -1 "$build/mpi.quick.log")"
  else
    echo "FAIL: collectives quick at 2 ranks (exit $?, $((SECONDS - t0)) s; $build/mpi.quick.log)"; tail -5 "$build/mpi.quick.log"; fail=1
  fi
  return $fail
}
