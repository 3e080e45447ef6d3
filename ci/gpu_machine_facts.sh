#!/usr/bin/env bash
# What the GPU machine is, written by the first call of a GPU session (ci/gpu_validate.sh's machine phase) so the
# rehearsal root (ci/gpu_rehearsal.sh) can be corrected from facts, not guesses: OS and glibc, compilers, the python3 on
# PATH and its wheels, where cuDNN, NCCL, cmake and ninja live, whether ssh/rsh/git/.git exist, the GPU and driver.
# Never fails, and never runs long: every probe is bounded (20 s), and the library search walks only the folders where a
# toolkit, a wheel or a distribution puts them, a few levels deep, never the image.
#   ci/gpu_machine_facts.sh [REPO_ROOT]
root=${1:-.}
section() { echo; echo "## $1"; }
try() { echo "\$ $*"; timeout -k 5 20 "$@" 2>&1 | head -40 || true; }
date -u +%FT%TZ
section "commit"
if git -C "$root" rev-parse HEAD >/dev/null 2>&1; then git -C "$root" log -1 --format="commit %H %s"
  git -C "$root" status --short | head -20
else echo "no git checkout here (.git: $([ -e "$root/.git" ] && echo present || echo absent)); TANDEM_COMMIT=${TANDEM_COMMIT:-unset}"; fi
section "system"
try uname -a; grep -E "^(PRETTY_NAME|VERSION_ID)=" /etc/os-release; ldd --version | head -1
echo "cores: $(nproc); memory: $(awk '/MemTotal/ {print $2/1048576 " GiB"}' /proc/meminfo); disk: $(df -h "$root" | awk 'NR==2 {print $4 " free"}')"
for tool in ssh rsh git g++ gcc make cmake ninja nvcc mpirun python3 dpkg-deb ldd tar xz; do
  printf '%-9s %s\n' "$tool" "$(command -v "$tool" || echo 'absent')"
done
try g++ --version; try cmake --version; try ninja --version
section "GPU"
try nvidia-smi; try nvcc --version
ls -d /usr/local/cuda* 2>&1
section "python3 and its wheels"
try python3 -c "import sys, sysconfig; print(sys.executable, sys.version); print(sysconfig.get_paths()['purelib'])"
try python3 -m pip list --format=freeze
python3 - <<'PY' 2>&1 || true
import importlib
for m in ("nvidia.cudnn", "nvidia.nccl", "nvidia.cu13", "torch", "jax"):
    try:
        mod = importlib.import_module(m)
        print(m, list(getattr(mod, "__path__", [getattr(mod, "__file__", "?")]))[:1], getattr(mod, "__version__", ""))
    except Exception as e:  # the fact is that it is missing
        print(m, "missing:", type(e).__name__, e)
try:
    import torch
    print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "gpu", torch.cuda.is_available())
except Exception as e:
    print("torch: not importable:", e)
PY
section "cuDNN, NCCL and MPI libraries on this machine"
# The dynamic linker's cache, then the folders a toolkit, a wheel or a distribution uses.
timeout 20 ldconfig -p 2>/dev/null | grep -E 'libcudnn|libnccl|libmpi\.|libcublas\.' | head -20
dirs=$(ls -d /usr/local/cuda* /usr/local/nvidia /usr/lib/x86_64-linux-gnu /usr/lib64 /opt/*/ \
  /usr/lib/python3*/site-packages /usr/local/lib/python3*/dist-packages 2>/dev/null)
# shellcheck disable=SC2086 # one folder per word
timeout -k 5 20 find $dirs -maxdepth 7 \( -name 'libcudnn.so*' -o -name 'libnccl.so*' -o -name 'cudnn_version.h' \
  -o -name 'nccl.h' -o -name 'libmpi.so*' -o -name 'compute-sanitizer' \) 2>/dev/null | grep -v "^$root/" | head -40
