# Cross build for arm64 (Graviton, Grace, ARM workstations) on a Debian 12 x86-64 host: Debian's
# cross compiler (g++-aarch64-linux-gnu) and the arm64 libraries installed through multiarch
# (apt-get install libopenblas-dev:arm64 ..., see ci/aarch64.sh), found by find_package in
# /usr/lib/aarch64-linux-gnu as the native build finds the amd64 ones. Tests and the quick
# profile run under QEMU user mode (CMAKE_CROSSCOMPILING_EMULATOR), so ctest works unchanged.
# usage: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake ...
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# The multiarch triplet: find_library/find_package look in /usr/lib/aarch64-linux-gnu, never in
# the host's /usr/lib/x86_64-linux-gnu.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Header-only packages whose CMake config Debian installs only under the host's triplet
# (libxtensor-dev:arm64 is not co-installable: xtl-dev is Architecture: all without Multi-Arch):
# the config names headers only, so the host's describes the target's too.
if(NOT DEFINED xtensor_DIR AND EXISTS /usr/lib/x86_64-linux-gnu/cmake/xtensor)
  set(xtensor_DIR /usr/lib/x86_64-linux-gnu/cmake/xtensor CACHE PATH "header-only: the host's config")
endif()

# qemu-aarch64 runs the test binaries (gtest discovery, ctest) and tandem itself, with the arm64
# loader and libc of multiarch (libc6:arm64, which every arm64 library above depends on): `-L /`.
# Not `-L /usr/aarch64-linux-gnu`, the cross toolchain's own loader: it is another build of glibc
# (libc6-arm64-cross), while the libraries load libc.so.6 from /usr/lib/aarch64-linux-gnu, and a
# loader with another build's libc corrupts glibc's private state: the first pthread_create spins
# forever (OpenBLAS's constructor hung every engine binary at start-up). ci/aarch64.sh's
# `emulator` step checks that a two-thread program finishes.
find_program(TANDEM_QEMU_AARCH64 qemu-aarch64)
if(TANDEM_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${TANDEM_QEMU_AARCH64} -L /)
endif()
