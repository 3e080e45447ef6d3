#!/usr/bin/env bash
# Downloads the Debian packages tandem needs to build and run, with the libraries they pull
# in that a CUDA/PyTorch image usually lacks, into .deps/debs (ignored by git). Carry that
# folder to an air-gapped machine (a GPU node, a cluster) and run ci/unpack_debs.sh there.
# The machine running this needs apt access; the target needs none.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/.deps/debs}
mkdir -p "$dest"
# Build-time packages: headers, static test libraries, BLAS, MPI, and the OpenCL headers and
# libOpenCL.so that oneDNN's CMake config requires (without them configure fails there). Their runtime libraries
# are resolved below, stopping at packages every Debian/Ubuntu base image has.
wanted=(libopenblas-dev libopenblas0-pthread libopenblas-pthread-dev nlohmann-json3-dev
        libcli11-dev libre2-dev libre2-9 libxtensor-dev xtl-dev libbenchmark-dev libbenchmark1debian libgtest-dev libgmock-dev
        libopenmpi-dev libopenmpi3 openmpi-bin openmpi-common libhwloc15 libevent-core-2.1-7
        libevent-pthreads-2.1-7 libpmix2 libfabric1 libucx0 libmunge2 libpsm2-2
        libibverbs1 librdmacm1 libnl-3-200 libnl-route-3-200 libgfortran5 libnuma1
        libltdl7 libxnvctrl0 libpciaccess0 libsqlite3-dev ninja-build
        libdnnl-dev libdnnl2 libgomp1
        ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers)
cd "$dest"
apt-get update -qq
for p in "${wanted[@]}"; do
  apt-get download "$p" 2>/dev/null || echo "bundle: skipped $p (not available here)"
done
ls -1 "$dest"/*.deb | wc -l | xargs echo "bundle: .deb files in $dest:"
du -sh "$dest"
