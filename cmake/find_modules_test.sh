#!/usr/bin/env bash
# FindCUDNN / FindNCCL on the pip-wheel layout: versioned sonames only (libcudnn.so.9 in nvidia/cudnn/lib, libnccl.so.2
# in the CUDA 13 wheels' shared nvidia/cu13/lib), found through CUDNN_ROOT / NCCL_ROOT and seen by
# tandem_nvidia_wheel_dirs through the python3 on PATH; and found with no *_ROOT through a venv's python that is not
# first on PATH, named by TANDEM_WHEEL_PYTHON or TANDEM_PYTHON (the GPU machines' wheels live in /opt/torch/.venv).
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
env -u TANDEM_WHEEL_PYTHON PYTHONPATH=$t/site CUDNN_ROOT=$site/cudnn NCCL_ROOT=$site/cu13 \
  "$cmake" -S "$here/find_modules_test" -B "$t/b" -G "$generator" >"$t/log" 2>&1
fail=0
check() {  # check PATTERN WHAT
  grep -q -- "$1" "$t/log" && echo "ok: $2" || { echo "FAIL: $2"; fail=1; }
}
check "RESULT wheel_dirs=.*$site/cu13" "the python3 on PATH shows the nvidia/cu13 wheel folder"
check "RESULT cudnn=$site/cudnn/lib/libcudnn.so.9 version=9.7.1" "CUDNN_ROOT: libcudnn.so.9 without a dev link, version from cudnn_version.h"
check "RESULT nccl=$site/cu13/lib/libnccl.so.2 version=2.27.3" "NCCL_ROOT: libnccl.so.2 in the cu13 layout, version from nccl.h"
[ $fail = 0 ] || cat "$t/log"

# A venv whose python is not first on PATH: its site-packages holds the wheels; the python3 on PATH is a decoy whose
# sys.path has none. The fake venv python prints its site-packages folder, which is all tandem_nvidia_wheel_dirs asks of
# it. System copies (/usr/local/cuda, /usr) are hidden so only the wheel can be found.
venv=$t/venv
vsite=$venv/lib/python3.12/site-packages/nvidia
mkdir -p "$vsite/cudnn/include" "$vsite/cudnn/lib" "$vsite/cu13/include" "$vsite/cu13/lib" "$venv/bin" "$t/decoy" "$t/empty"
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 3\n#define CUDNN_PATCHLEVEL 0\n' >"$vsite/cudnn/include/cudnn_version.h"
touch "$vsite/cudnn/include/cudnn.h" "$vsite/cudnn/lib/libcudnn.so.9" "$vsite/cu13/lib/libnccl.so.2"
printf '#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n#define NCCL_PATCH 1\n' >"$vsite/cu13/include/nccl.h"
printf '#!/bin/sh\necho "%s"\n' "$venv/lib/python3.12/site-packages" >"$venv/bin/python3"
printf '#!/bin/sh\necho "%s"\n' "$t/empty" >"$t/decoy/python3"
chmod +x "$venv/bin/python3" "$t/decoy/python3"
hide="/usr/local/cuda;/usr/local/cuda/lib64;/usr/local/cuda/lib;/usr/local/cuda/include;/usr/local/cuda/targets/x86_64-linux/lib;/usr/local/cuda/targets/x86_64-linux/include;/usr/lib/x86_64-linux-gnu;/usr/include;/usr/lib;/usr/lib64"
wheel_env=""
venv_case() {  # venv_case NAME CMAKE_ARGS...: configure with the decoy first on PATH, no *_ROOT
  # (and TANDEM_WHEEL_PYTHON in the environment only when wheel_env is set)
  local name=$1; shift
  env -u CUDNN_ROOT -u NCCL_ROOT -u PYTHONPATH -u TANDEM_WHEEL_PYTHON PATH="$t/decoy:$PATH" ${wheel_env:+TANDEM_WHEEL_PYTHON=$wheel_env} \
    "$cmake" -S "$here/find_modules_test" -B "$t/b_$name" -G "$generator" "-DCMAKE_IGNORE_PATH=$hide" "$@" \
    >"$t/log_$name" 2>&1
}
check_in() {  # check_in LOG PATTERN WHAT
  grep -q -- "$2" "$1" && echo "ok: $3" || { echo "FAIL: $3"; cat "$1"; fail=1; }
}
for var in TANDEM_WHEEL_PYTHON TANDEM_PYTHON; do
  venv_case "$var" "-D$var=$venv/bin/python3"
  check_in "$t/log_$var" "searched the sys.path of $venv/bin/python3 ($var): $vsite/cudnn" "$var: says which Python's site-packages it searched"
  check_in "$t/log_$var" "RESULT cudnn=$vsite/cudnn/lib/libcudnn.so.9 version=9.3.0" "$var: cuDNN from the venv's wheel, python3 on PATH a decoy"
  check_in "$t/log_$var" "RESULT nccl=$vsite/cu13/lib/libnccl.so.2 version=2.28.1" "$var: NCCL from the venv's cu13 wheel"
done
# TANDEM_WHEEL_PYTHON from the environment (as ci/gpu_validate.sh has it) works the same.
wheel_env=$venv/bin/python3 venv_case env_var
check_in "$t/log_env_var" "RESULT cudnn=$vsite/cudnn/lib/libcudnn.so.9 version=9.3.0" "TANDEM_WHEEL_PYTHON in the environment: cuDNN from the venv's wheel"
wheel_env=""
# Without either variable the decoy on PATH is asked and the wheel is missed: what they fix.
venv_case path_only
check_in "$t/log_path_only" "searched the sys.path of .*(the python3 on PATH): none" "no variable: the python3 on PATH is asked (and has no wheel)"
grep -q "RESULT cudnn=$vsite" "$t/log_path_only" && { echo "FAIL: the decoy found the venv's cuDNN"; fail=1; }
# A TANDEM_WHEEL_PYTHON that does not exist is an error with a hint, not a silent miss.
venv_case bad "-DTANDEM_WHEEL_PYTHON=$t/no/python3"
check_in "$t/log_bad" "hint: pass the python3 of the venv" "TANDEM_WHEEL_PYTHON missing: a configure error with a hint"
exit $fail
