#!/usr/bin/env bash
# The dress rehearsal of a GPU session: runs, here, exactly the device-tool calls that
# docs/GPU_VALIDATION.md lists, in a fresh root made to look like the lent GPU machine as far
# as it is known (/work/.library/device/KINDS.md): Ubuntu 24.04 minbase (its python3 is the
# 3.12.3 seen there) with g++ for nvcc and nothing else (no ssh, no OpenCL, no -dev package);
# a venv at /opt/torch/.venv, first on PATH, with cmake, ninja, numpy, jax and the
# nvidia-cudnn-cu13 / nvidia-nccl-cu13 wheels; the CUDA toolkit read-only at /usr/local/cuda
# *without* the cuDNN and NCCL this host keeps there; no network; and the working tree as the
# device tool carries it (tracked and untracked-not-ignored files plus the carried .deps/debs, at most 64 MiB, no .git).
# Every phase that needs no GPU runs end to end; the ones that do must fail only for the missing GPU
# (ci/gpu_rehearsal_verdict.py names any other failure), and what comes back must fit the device tool's limits and hold
# every record. It leaves rehearsed.txt (the commit, its uncommitted changes, the exit) for ci/gpu_preflight.sh.
#
# usage: ci/gpu_rehearsal.sh        (as root; about 40 minutes on 2 cores, most of it the build)
# Environment:
#   GPU_REHEARSAL_DIR    where the root is made (default <repo>/.gpu-rehearsal, ignored)
#   GPU_REHEARSAL_CACHE  apt .debs, wheels and the Ubuntu keyring kept between runs
#                        (default /var/cache/tandem-gpu-rehearsal)
#   GPU_REHEARSAL_REUSE=1  keep the root, venv and build of the last run (iterating); the tree
#                        is copied in again
#   GPU_REHEARSAL_LOGS   where the report goes (default <repo>/results/gpu-rehearsal)
#   GPU_REHEARSAL_BUDGET seconds each call may take here (default 4800: 2 cores, not 16)
#   GPU_REHEARSAL_KEEP=0 remove the root afterwards (default: kept, for GPU_REHEARSAL_REUSE)
# Exit: 0 when the rehearsal passed; 1 when a step failed for a reason other than the missing
# GPU, or the results would not come back; 5 when the root cannot be made.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${GPU_REHEARSAL_DIR:-$repo/.gpu-rehearsal}
cache=${GPU_REHEARSAL_CACHE:-/var/cache/tandem-gpu-rehearsal}
logs=${GPU_REHEARSAL_LOGS:-$repo/results/gpu-rehearsal}
mirror=http://archive.ubuntu.com/ubuntu
root=$dir/root
# The Ubuntu archive's signing key (2018), checked by fingerprint before it is trusted.
ubuntu_key=F6ECB3762474EDA9D21B7022871920D1991BC93C

fail() { echo "gpu-rehearsal: error: $1" >&2; [ -n "${2:-}" ] && echo "  hint: $2" >&2; exit "${3:-5}"; }
stamp() { printf '%-34s %6d s\n' "$1" $(( $(date +%s) - $2 )) | tee -a "$logs/times.txt"; }

# The Ubuntu keyring package, fetched over plain http and trusted only if the archive key's
# fingerprint is the one above.
ubuntu_keyring() {
  local deb=$cache/ubuntu-keyring.deb x=$cache/keyring
  [ -f "$deb" ] || curl -fsS -o "$deb" "$mirror/pool/main/u/ubuntu-keyring/ubuntu-keyring_2023.11.28.1_all.deb" ||
    fail "cannot fetch the Ubuntu keyring from $mirror" "is archive.ubuntu.com reachable?"
  rm -rf "$x" && mkdir -p "$x" && dpkg-deb -x "$deb" "$x"
  gpg --show-keys --with-colons "$x/usr/share/keyrings/ubuntu-archive-keyring.gpg" | grep -q "^fpr:*$ubuntu_key:" ||
    fail "the Ubuntu keyring does not hold the archive key $ubuntu_key" "remove $deb and try again"
  echo "$x/usr/share/keyrings/ubuntu-archive-keyring.gpg"
}

# The root: noble minbase plus g++ (nvcc's host compiler) and python3-venv (the image's venv).
make_root() {
  local keyring; keyring=$(ubuntu_keyring)
  mkdir -p "$cache/apt"
  mmdebstrap --variant=minbase --mode=root --keyring="$keyring" --components=main,universe \
    --include=python3,python3-venv,g++,ca-certificates --skip=download/empty \
    --setup-hook='mkdir -p "$1/var/cache/apt/archives"' \
    --setup-hook="sync-in $cache/apt /var/cache/apt/archives" \
    --customize-hook="sync-out /var/cache/apt/archives $cache/apt" \
    noble "$root" "deb $mirror noble main universe" "deb $mirror noble-updates main universe" \
    >"$logs/mmdebstrap.log" 2>&1 || fail "mmdebstrap failed (log: $logs/mmdebstrap.log)" "is $mirror reachable?"
  mkdir -p "$root/usr/local/cuda-13.0" "$root/etc/rehearsal" "$root/out"
  ln -sfn cuda-13.0 "$root/usr/local/cuda"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/rehearsal/host-ca.crt"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
}

# The toolkit as the image may have it: this host's /usr/local/cuda, hard-linked, without the
# cuDNN and NCCL files installed into it here (the image's come from the pip wheels).
toolkit_copy() {
  local src; src=$(readlink -f /usr/local/cuda)
  [ -x "$src/bin/nvcc" ] || fail "no CUDA toolkit at /usr/local/cuda" "install CUDA 13 there"
  rm -rf "$dir/cuda" && cp -al "$src" "$dir/cuda" 2>/dev/null || cp -a "$src" "$dir/cuda"
  find "$dir/cuda" \( -name '*cudnn*' -o -name '*nccl*' \) -print -exec rm -rf {} + >"$logs/toolkit-hidden.txt" 2>/dev/null || true
}

# enter NET CMD: runs CMD inside the root, NET=net with the network (venv install) or
# NET=offline in a network namespace with only loopback (as the GPU machine reaches nothing).
enter() {
  local net=$1; shift
  local flags=(--mount --pid --fork --kill-child); [ "$net" = offline ] && flags+=(--net)
  unshare "${flags[@]}" -- bash -euc '
    root=$1; dir=$2; cache=$3; shift 3
    ip link set lo up 2>/dev/null || true
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"; mount -t tmpfs -o size=4g tmpfs "$root/dev/shm"
    mount --rbind -o ro /sys "$root/sys" 2>/dev/null || mount --rbind /sys "$root/sys"
    mount -t tmpfs -o size=8g tmpfs "$root/tmp"
    mount --bind "$dir/cuda" "$root/usr/local/cuda-13.0"; mount -o remount,bind,ro "$root/usr/local/cuda-13.0"
    mkdir -p "$root/var/cache/wheels"; mount --bind "$cache/wheels" "$root/var/cache/wheels"
    exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 PYTHONUNBUFFERED=1 \
      PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      SSL_CERT_FILE=/etc/rehearsal/host-ca.crt PIP_CERT=/etc/rehearsal/host-ca.crt "$@"
  ' rehearsal "$root" "$dir" "$cache" "$@"
}

# The venv at /opt/torch/.venv: wheels downloaded once into the cache, installed offline.
make_venv() {
  mkdir -p "$cache/wheels"
  cp "$repo/ci/gpu_rehearsal_requirements.txt" "$root/etc/rehearsal/requirements.txt"
  enter net bash -ec '
    python3 -m venv /opt/torch/.venv
    pip download -q -d /var/cache/wheels -r /etc/rehearsal/requirements.txt
    pip install -q --no-index --find-links /var/cache/wheels -r /etc/rehearsal/requirements.txt
    pip list --format=freeze' >"$logs/venv.txt" 2>&1 || fail "the venv install failed (log: $logs/venv.txt)" "is PyPI reachable?"
}

# The working tree as the device tool sends it: tracked and untracked-not-ignored files and the
# carried paths, no .git; refused over the tool's 64 MiB. The build of a reused root stays.
copy_tree() {
  local list=$logs/tree-files.txt bytes
  bash "$repo/ci/gpu_preflight.sh" --tree-files >"$list"  # the preflight's list: one definition
  bytes=$(cd "$repo" && tr '\n' '\0' <"$list" | du -cb --files0-from=- | tail -1 | cut -f1)
  echo "tree: $(wc -l <"$list") files, $((bytes >> 20)) MiB (device tool limit 64 MiB)" | tee -a "$logs/times.txt"
  [ "$bytes" -le $((64 << 20)) ] || fail "the working tree would be $((bytes >> 20)) MiB, over the device tool's 64 MiB" \
    "carry less, or ignore large untracked files" 1
  mkdir -p "$root/src/tandem"
  find "$root/src/tandem" -mindepth 1 -maxdepth 1 ! -name build-gpu ! -name out -exec rm -rf {} +
  bash "$repo/ci/gpu_tree_copy.sh" "$list" "$repo" "$root/src/tandem"  # files changed since the last copy: touched
  # Configure from scratch as on a fresh machine (a cached find would hide a missing package);
  # the objects stay, and ninja rebuilds only what the new configure changes.
  rm -f "$root/src/tandem/build-gpu/CMakeCache.txt"
}

[ "$(id -u)" = 0 ] || fail "making and entering a root needs root" "run it as root"
for tool in mmdebstrap gpg curl; do command -v $tool >/dev/null ||
  fail "$tool is missing" "apt-get install mmdebstrap gpg curl (ci/deps.txt does not list host tools)"; done
[ -n "$(ls "$repo"/.deps/debs/*.deb 2>/dev/null)" ] || "$repo/ci/bundle_debs.sh" >/dev/null
mkdir -p "$logs" "$cache"
rm -rf "$logs"/*.txt "$logs"/*.log "$logs"/*.md "$logs/gpu"
rehearsed=$(git -C "$repo" rev-parse HEAD); dirty=$(git -C "$repo" status --porcelain | wc -l)
start=$(date +%s)
if [ "${GPU_REHEARSAL_REUSE:-0}" != 1 ] || [ ! -x "$root/opt/torch/.venv/bin/python3" ]; then
  grep -q " $root/" /proc/self/mountinfo && fail "something is still mounted under $root" "umount -R it first"
  rm -rf "$dir" && mkdir -p "$dir"
  t=$(date +%s); make_root; stamp "make the root (noble minbase)" "$t"
  t=$(date +%s); toolkit_copy; stamp "CUDA toolkit without cuDNN/NCCL" "$t"
  t=$(date +%s); make_venv; stamp "venv /opt/torch/.venv" "$t"
fi
t=$(date +%s); copy_tree; stamp "copy the working tree" "$t"

# The calls of docs/GPU_VALIDATION.md, in order, offline; the machine stays warm between them.
budget=${GPU_REHEARSAL_BUDGET:-4800}
rm -rf "$root/out" && mkdir -p "$root/out/call1" "$root/out/call2"
for call in "1 first" "2 rest"; do
  set -- $call
  t=$(date +%s)
  enter offline bash -c "cd /src/tandem && OUT=/out/call$1 GPU_CALL_LIMIT=$((budget + 60)) GPU_SESSION_BUDGET=$budget \
    STEP_TIMEOUT=$budget GPU_VALIDATE_BACKEND=cpu PERF_REPS=1 TANDEM_COMMIT=$(git -C "$repo" rev-parse --short=12 HEAD) \
    bash ci/gpu_session.sh $2" \
    >"$logs/call$1.log" 2>&1 || true
  stamp "call $1: ci/gpu_session.sh $2" "$t"
done
stamp "total" "$start"
set +e
python3 "$repo/ci/gpu_rehearsal_verdict.py" "$root/out" "$logs" | tee "$logs/verdict.md"
rc=${PIPESTATUS[0]}
# What ci/gpu_preflight.sh reads: a window starts only on the commit rehearsed, clean, passed.
printf 'commit %s\ndirty %s\nexit %s\n' "$rehearsed" "$dirty" "$rc" >"$logs/rehearsed.txt"
python3 "$repo/ci/gpu_build_estimate.py" "$root/src/tandem/build-gpu" >"$logs/build_time.txt" 2>&1
[ "${GPU_REHEARSAL_KEEP:-1}" = 1 ] || rm -rf "$dir"
exit "$rc"
