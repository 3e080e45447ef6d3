#!/usr/bin/env bash
# The README's two commands, as written, in a fresh Debian 12 root: what `.ci/run` runs and what a developer runs before
# stopping. A minbase bookworm root is made for the run (mmdebstrap), a clean clone of this repository's HEAD is copied
# in, and the commands run there with /usr/local/cuda bind-mounted read-only and nothing else of the host visible, so a
# package left over on the host, or a patched file of one, cannot make them pass.
#
# usage: ci/fresh_root.sh [COMMAND]   (as root; default: 'ci/quickstart.sh && ci/test.sh')
# Environment:
#   FRESH_ROOT_DIR    where the root is made (default: <repo>/.fresh-root, ignored by git);
#                     removed and made again on every run
#   FRESH_ROOT_CACHE  what a user's CI caches, kept between runs, which cannot hide a missing
#                     install step: apt's .debs, pip's cache where pip keeps one, ccache's
#                     objects (keyed by the compiler and every header's content, so a package
#                     the root lacks still fails the build) and JAX's compilation cache (keyed
#                     by the program, XLA's flags and JAX's version: no JAX, no hit) (default:
#                     /var/cache/tandem-fresh-root, so CI's clean clones share it)
#   FRESH_ROOT_KEEP=1 keep the root afterwards (to look inside: chroot DIR/root)
#   FRESH_ROOT_MIRROR Debian mirror (default: http://deb.debian.org/debian)
#   FRESH_ROOT_DEPS   a deps.txt to use inside instead of the clone's (the self-check that a
#                     missing entry fails the run)
#   FRESH_ROOT_LOGS   where the logs go (default: <repo>/results/fresh-root/): packages.txt
#                     (the root's package list after the run), run.log, times.txt,
#                     mmdebstrap.log and the main job's summary.md
# Exit: the command's code; 5 when the root cannot be made or entered; 1 when the self-check
# finds the root is not clean.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${FRESH_ROOT_DIR:-$repo/.fresh-root}
cache=${FRESH_ROOT_CACHE:-/var/cache/tandem-fresh-root}
mirror=${FRESH_ROOT_MIRROR:-http://deb.debian.org/debian}
logs=${FRESH_ROOT_LOGS:-$repo/results/fresh-root}
command=${1:-ci/quickstart.sh \&\& ci/test.sh}
root=$dir/root
here=$(cd "$(dirname "$0")" && pwd)

# Proves the root was not the host: no package file modified (the host's FindCUDAToolkit.cmake
# was patched once and hid a configure failure), packages the host has and ci/deps.txt does
# not bring absent, and nothing of the host's /usr/local or pyenv inside.
self_check() {
  local ok=0 modified host_only
  modified=$(chroot "$root" dpkg --verify 2>&1 | grep -v ' c /' || true)
  if [ -n "$modified" ]; then
    echo "fresh-root: self-check FAILED: files of installed packages differ from the .debs:" >&2
    echo "$modified" | head -5 >&2; ok=1
  fi
  host_only=$(comm -23 <(dpkg-query -W -f='${Package}\n' | sort) <(cut -d' ' -f1 "$logs/packages.txt"))
  if [ -z "$host_only" ]; then
    echo "fresh-root: self-check FAILED: every host package is inside the root too" >&2; ok=1
  fi
  for leak in "$root/root/.pyenv" "$root/usr/local/bin/cmake"; do
    [ ! -e "$leak" ] || { echo "fresh-root: self-check FAILED: $leak exists inside" >&2; ok=1; }
  done
  [ "$ok" = 1 ] || echo "fresh-root: self-check passed: no package file modified; $(wc -l <<<"$host_only") host" \
    "packages absent inside (e.g. $(shuf -n 4 --random-source=<(yes) <<<"$host_only" | paste -sd' '))"
  return "$ok"
}

fail() { echo "fresh-root: error: $1" >&2; [ -n "${2:-}" ] && echo "  hint: $2" >&2; exit "${3:-5}"; }
stamp() { printf '%-28s %5d s\n' "$1" $(( $(date +%s) - $2 )) | tee -a "$logs/times.txt"; }

[ "$(id -u)" = 0 ] || fail "making and entering a root needs root" "run it as root (sudo ci/fresh_root.sh)"
command -v mmdebstrap >/dev/null || {
  echo "fresh-root: installing mmdebstrap (the root maker)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
} || fail "cannot install mmdebstrap" "apt-get install mmdebstrap, or run with network"
git -C "$repo" rev-parse HEAD >/dev/null 2>&1 || fail "$repo is not a git checkout" "run it from a clone of tandem"

mkdir -p "$logs" "$cache/apt" "$cache/pip" "$cache/ccache" "$cache/jax"
rm -f "$logs"/*.txt "$logs"/*.log "$logs"/*.md
# Mounts made below live in a private mount namespace, so removing the old root never
# reaches into /usr/local/cuda; a leftover mount from a killed run is refused instead.
if grep -q " $root/" /proc/self/mountinfo; then
  fail "something is still mounted under $root" "umount -R $root/* first (a killed run?)"
fi
rm -rf "$dir"
mkdir -p "$dir"
start=$(date +%s)

# 1. The root: Debian 12 minbase, bookworm with its updates and security suites.
t=$(date +%s)
mmdebstrap --variant=minbase --mode=root --components=main bookworm "$root" \
  "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
  "deb ${mirror%/debian}/debian-security bookworm-security main" >"$logs/mmdebstrap.log" 2>&1 ||
  fail "mmdebstrap failed (log: $logs/mmdebstrap.log)" "is the Debian mirror $mirror reachable?"
stamp "make the root" "$t"

# 2. The clone, as CI's: committed files only. FRESH_ROOT_DEPS replaces its deps.txt.
git clone -q --no-hardlinks "$repo" "$root/src/tandem"
[ -z "${FRESH_ROOT_DEPS:-}" ] || cp "$FRESH_ROOT_DEPS" "$root/src/tandem/ci/deps.txt"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# /etc/hosts as Debian's installer (and every container runtime) writes it; mmdebstrap writes
# none. Without it `localhost` goes to DNS, and each MPI_Init of a process started without
# mpirun (Open MPI's singleton) waited 5 s for that answer: each of the 108 collectives quick
# cases ran 5.5 s instead of 0.5 s in the fresh root, and so did every CLI test's such process.
printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n' "$(hostname)" >"$root/etc/hosts"
# Network settings, not packages: a TLS-intercepting proxy's CA bundle and pip's config.
mkdir -p "$root/etc/fresh-root"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/fresh-root/host-ca.crt"
[ ! -f /etc/pip.conf ] || sed 's#^cert *=.*#cert = /etc/fresh-root/host-ca.crt#' /etc/pip.conf >"$root/etc/pip.conf"
mkdir -p "$root/usr/local/cuda" "$root/root/.cache/pip" "$root/root/.cache/ccache" "$root/root/.cache/jax"
cp "$here/fresh_root_inside.sh" "$root/etc/fresh-root/inside.sh"

# 3. Enter it: private mounts, own PID namespace, the CUDA toolkit read-only, a clean env.
t=$(date +%s)
set +e
unshare --mount --pid --fork --kill-child -- bash -euc '
  root=$1; cache=$2
  # The root a mount point, as / is on a machine: `ip netns` makes / a slave mount, which
  # fails (EINVAL) on a plain directory (the cluster tests, runners/cluster).
  mount --bind "$root" "$root"
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"; mount -t tmpfs -o size=4g tmpfs "$root/dev/shm"
  mount --rbind -o ro /sys "$root/sys" 2>/dev/null || mount --rbind /sys "$root/sys"
  mount -t tmpfs -o size=8g tmpfs "$root/tmp"
  if [ -d /usr/local/cuda ]; then
    mount --bind /usr/local/cuda/ "$root/usr/local/cuda"
    mount -o remount,bind,ro "$root/usr/local/cuda"
  fi
  mount --bind "$cache/apt" "$root/var/cache/apt/archives"
  mount --bind "$cache/pip" "$root/root/.cache/pip"
  mount --bind "$cache/ccache" "$root/root/.cache/ccache"
  mount --bind "$cache/jax" "$root/root/.cache/jax"
  exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 CI=true \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    SSL_CERT_FILE=/etc/fresh-root/host-ca.crt JAX_COMPILATION_CACHE_DIR=/root/.cache/jax \
    bash /etc/fresh-root/inside.sh "$3"
' fresh-root "$root" "$cache" "$command" 2>&1 | tee "$logs/run.log"
code=${PIPESTATUS[0]}
set -e
stamp "run: $command" "$t"
stamp "total" "$start"

# 4. What the root held, and the self-check that it was not the host.
dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Package} ${Version}\n' | sort >"$logs/packages.txt"
echo "fresh-root: the root's packages after the run ($(wc -l <"$logs/packages.txt")), $logs/packages.txt:"
cut -d' ' -f1 "$logs/packages.txt" | paste -sd' ' | fold -s -w 110 | sed 's/^/  /'
[ ! -f "$root/src/tandem/results/quick/summary.md" ] || cp "$root/src/tandem/results/quick/summary.md" "$logs/summary.md"
selfcheck=0
self_check || selfcheck=1
[ "${FRESH_ROOT_KEEP:-0}" = 1 ] || rm -rf "$dir"
if [ "$code" -ne 0 ]; then
  echo "fresh-root: '$command' exited $code in the fresh root (log: $logs/run.log)" >&2
  exit "$code"
fi
[ "$selfcheck" = 0 ] || exit 1
echo "fresh-root: passed in $(( $(date +%s) - start )) s"
