#!/usr/bin/env bash
# Proves the offline path on this Debian machine: unpacks the bundle (.deps/debs from
# ci/bundle_debs.sh), then, in a private mount namespace where /usr is a hard-link copy of
# /usr WITHOUT every file the bundle's packages install (and /etc/openmpi is empty), checks
# that the system copies are really gone, configures and builds with TANDEM_OFFLINE_PREFIX
# (as ci/gpu_validate.sh does, CUDA/cuDNN/NCCL/MPI required), checks that every dependency
# came from the prefix, runs the whole ctest suite (GPU tests skip here: no GPU), and runs
# ci/gpu_validate.sh on that build (its offline phases must pass, its GPU rows must fail).
#   lab/bench/offline_selftest.sh [WORKDIR]      (default .deps/selftest; root, same filesystem as /usr)
# Writes WORKDIR/summary.txt and WORKDIR/ctest.log; exits non-zero when any step fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$root/.deps/selftest}
debs=${TANDEM_DEBS:-$root/.deps/debs}
[ "$(id -u)" = 0 ] || { echo "error: needs root (unshare --mount)" >&2; echo "  hint: run as root or in a container" >&2; exit 5; }
mkdir -p "$work"
work=$(cd "$work" && pwd)
rm -rf "$work/prefix" "$work/usr"
"$root/ci/unpack_debs.sh" "$debs" "$work/prefix"

# /usr without the bundle's files: hard links cost no space but need one filesystem.
cp -al /usr "$work/usr" || { echo "error: cannot hard-link /usr into $work" >&2; echo "  hint: put WORKDIR on the filesystem of /usr" >&2; exit 5; }
hidden=0
while IFS= read -r p; do
  case $p in
    usr/*) t=$work/$p ;;
    lib/* | lib64/* | bin/* | sbin/*) t=$work/usr/$p ;;  # merged /usr: /lib is usr/lib
    *) continue ;;
  esac
  if [ -e "$t" ] || [ -L "$t" ]; then rm -f "$t"; hidden=$((hidden + 1)); fi
done < <(cd "$work/prefix" && find . \( -type f -o -type l \) | sed 's|^\./||')
echo "selftest: $hidden system files of the bundle's packages hidden"

export root work hidden
unshare --mount --propagation private bash -euo pipefail -c '
mount --bind "$work/usr" /usr
[ -d /etc/openmpi ] && mount -t tmpfs none /etc/openmpi
for f in /usr/include/nlohmann/json.hpp /usr/include/CLI/CLI.hpp /usr/include/re2/re2.h /usr/include/gtest/gtest.h \
         /usr/include/x86_64-linux-gnu/cblas.h /usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h \
         /usr/lib/x86_64-linux-gnu/libopenblas.so /usr/lib/x86_64-linux-gnu/libopenblas.so.0 \
         /usr/lib/x86_64-linux-gnu/libgtest.a /usr/lib/x86_64-linux-gnu/libmpi.so.40 \
         /usr/lib/x86_64-linux-gnu/libnl-3.so.200 /usr/bin/mpirun /usr/bin/mpicxx /usr/bin/ninja; do
  if [ -e "$f" ]; then echo "error: $f is still visible" >&2; exit 5; fi
done
echo "selftest: system copies hidden (nlohmann, CLI11, RE2, gtest, OpenBLAS, Open MPI, libnl, ninja)"
export TANDEM_OFFLINE_PREFIX=$work/prefix
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
t0=$(date +%s)
BUILD_DIR=$work/build nice "$root/ci/build.sh" -DTANDEM_REQUIRE="CUDA;cuDNN;NCCL;MPI" "${launcher[@]}" \
  > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; echo "selftest: BUILD FAILED" >&2; exit 1; }
t1=$(date +%s)
grep "^-- tandem: " "$work/build.log" | sed "s/^-- //" | sort -u
. "$TANDEM_OFFLINE_PREFIX/env.sh"
# Every dependency the bundle provides was found in the prefix, at configure and at run time.
bad=0
for v in BLAS_openblas_LIBRARY TANDEM_CBLAS_INCLUDE nlohmann_json_DIR CLI11_DIR RE2_LIBRARY benchmark_DIR xtensor_DIR \
         GTest_DIR MPI_mpi_LIBRARY MPI_mpi_cxx_LIBRARY MPIEXEC_EXECUTABLE; do
  val=$(grep -E "^$v:[A-Z]+=" "$work/build/CMakeCache.txt" | head -1 | cut -d= -f2- || true)
  case $val in "$work/prefix"/*) echo "  $v = ${val#"$work"/}" ;; *) echo "error: $v = $val (not from the prefix)" >&2; bad=1 ;; esac
done
for l in libopenblas.so.0 libmpi.so.40 libbenchmark.so.1debian libre2.so.9; do
  where=$(ldd "$work/build/tandem" | awk -v l=$l "\$1 == l {print \$3}")
  case $where in "$work/prefix"/*) echo "  tandem loads $l from ${where#"$work"/}" ;; *) echo "error: tandem loads $l from \"$where\"" >&2; bad=1 ;; esac
done
[ $bad = 0 ] || exit 1
cd "$work/build"
set +e
nice ctest -j "${JOBS:-$(nproc)}" --output-on-failure > "$work/ctest.log" 2>&1
rc=$?
t2=$(date +%s)
# ci/gpu_validate.sh itself, from the bundle, on this build: bundle, configure (CUDA, cuDNN,
# NCCL, MPI required) and build must pass; without a GPU here it must fail (exit 1) at the rows
# that need one.
rm -rf "$work/gpu_validate"
BUILD_DIR=$work/build "$root/ci/gpu_validate.sh" "$work/gpu_validate" machine,bundle,configure,build,quick,nccl \
  > "$work/gpu_validate.log" 2>&1
gv=$?
set -e
for row in bundle configure build; do
  grep -qP "^$row\tpass\t" "$work/gpu_validate/steps.tsv" || { echo "error: gpu_validate $row did not pass" >&2; rc=1; }
done
[ $gv = 1 ] || { echo "error: gpu_validate exit $gv without a GPU, want 1" >&2; rc=1; }
{
  echo "offline selftest $(date -u +%FT%TZ) on $(hostname), $(nproc) cores, load $(cut -d" " -f1-3 /proc/loadavg)"
  echo "hidden system files: $hidden; build $((t1 - t0)) s; ctest $((t2 - t1)) s"
  grep "^-- tandem: " "$work/build.log" | sed "s/^-- //" | sort -u
  grep -E "tests passed|Total Test time" "$work/ctest.log"
  echo "skipped (no GPU here: CUDA cases and GPU tests; presets the CPU lacks; no torch): $(grep -c "\*\*\*Skipped" "$work/ctest.log")"
  grep -E "\*\*\*(Failed|Timeout|Exception)" "$work/ctest.log" | head -20 || true
  echo "ci/gpu_validate.sh (exit $gv; rows: step, result, exit code, seconds):"
  cut -f1-4 "$work/gpu_validate/steps.tsv" | sed "s/^/  /"
} > "$work/summary.txt"
cat "$work/summary.txt"
exit $rc
'
