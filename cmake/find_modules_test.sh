#!/usr/bin/env bash
# FindCUDNN / FindNCCL on the pip-wheel layout: versioned sonames only (libcudnn.so.9 in
# nvidia/cudnn/lib, libnccl.so.2 in the CUDA 13 wheels' shared nvidia/cu13/lib), found through
# CUDNN_ROOT / NCCL_ROOT and seen by tandem_nvidia_wheel_dirs through the python3 on PATH.
#   cmake/find_modules_test.sh CMAKE [GENERATOR]  (GENERATOR: the build's, e.g. Ninja)
set -uo pipefail
cmake=${1:-cmake}
generator=${2:-Ninja}
here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
site=$t/site/nvidia
mkdir -p "$site/cudnn/include" "$site/cudnn/lib" "$site/cu13/include" "$site/cu13/lib"
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 7\n#define CUDNN_PATCHLEVEL 1\n' >"$site/cudnn/include/cudnn_version.h"
touch "$site/cudnn/include/cudnn.h" "$site/cudnn/lib/libcudnn.so.9" "$site/cu13/lib/libnccl.so.2"
printf '#define NCCL_MAJOR 2\n#define NCCL_MINOR 27\n#define NCCL_PATCH 3\n' >"$site/cu13/include/nccl.h"
touch "$site/cudnn/__init__.py"
PYTHONPATH=$t/site CUDNN_ROOT=$site/cudnn NCCL_ROOT=$site/cu13 \
  "$cmake" -S "$here/find_modules_test" -B "$t/b" -G "$generator" >"$t/log" 2>&1
fail=0
check() {  # check PATTERN WHAT
  grep -q -- "$1" "$t/log" && echo "ok: $2" || { echo "FAIL: $2"; fail=1; }
}
check "RESULT wheel_dirs=.*$site/cu13" "the python3 on PATH shows the nvidia/cu13 wheel folder"
check "RESULT cudnn=$site/cudnn/lib/libcudnn.so.9 version=9.7.1" "CUDNN_ROOT: libcudnn.so.9 without a dev link, version from cudnn_version.h"
check "RESULT nccl=$site/cu13/lib/libnccl.so.2 version=2.27.3" "NCCL_ROOT: libnccl.so.2 in the cu13 layout, version from nccl.h"
[ $fail = 0 ] || cat "$t/log"
exit $fail
