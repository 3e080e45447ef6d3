#!/usr/bin/env bash
# ci/quickstart.sh's log where it is not a terminal (CI's): a passing main job's log stays within 60 lines (phases, a
# line per tool, the build's tenths, the run's summary; ci/quiet.sh), a failing tool shows its exit and its log's tail
# and the job fails with its code, and the build's progress reaches the log while it builds. The tools are stubs on PATH
# as talkative as the real ones in a fresh root: no root, no network, a few seconds. usage: quickstart_log_test.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
repo=$work/repo bin=$work/bin
mkdir -p "$repo/ci" "$repo/runners/launch" "$bin"
cp "$here"/{quickstart,install_deps,python_env,build,offline_env,quiet,quick_run}.sh "$here"/{deps,requirements}.txt "$repo/ci/"
cp "$here/../runners/launch/mpi_local.sh" "$repo/runners/launch/"
stub() { printf '#!/usr/bin/env bash\n%s\n' "$2" >"$bin/$1"; chmod +x "$bin/$1"; }
lines() { for i in $(seq "$1"); do echo "$2 $i"; done; }
stub dpkg-query 'exit 1'  # nothing installed
stub sudo 'exec "$@"'
stub apt-get "$(declare -f lines)"'
[ "$1" = update ] && exit 0
lines 1200 "Unpacking libexample"
[ -z "${FAIL_APT:-}" ] || { echo "E: Unable to locate package $FAIL_APT"; exit 100; }'
stub python3 '[ "$1 $2" = "-m venv" ] || exit 2; mkdir -p "$3/bin"
printf "#!/usr/bin/env bash\nfor i in \$(seq 300); do echo Collecting wheel-\$i; done\n" >"$3/bin/pip"
printf "#!/usr/bin/env bash\necho jax 0.10.2 numpy 2.4.6\n" >"$3/bin/python3"; chmod +x "$3/bin/"*'
stub cmake "$(declare -f lines)"'
if [ "$1" = --build ]; then
  for i in $(seq 273); do echo "[$i/273] Building CXX object obj$i.o"; done
  # Still building until the test has seen the last tenth in the log (FLAG): progress is live.
  for i in $(seq 50); do [ -z "${FLAG:-}" ] || [ -e "$FLAG" ] && break; sleep 0.1; done
  [ -z "${FLAG:-}" ] || [ -e "$FLAG" ] || touch "$FLAG.late"
  printf "#!/usr/bin/env bash\n[ \"\$1\" = report ] && { mkdir -p \"\$4\"; : >\"\$4/summary.md\"; exit 0; }
for i in \$(seq 25); do echo \"suite or summary line \$i\"; done\n" >"$2/tandem"; chmod +x "$2/tandem"; exit 0
fi
while [ "$1" != -B ]; do shift; done; mkdir -p "$2"
lines 40 "-- Detecting something"; lines 9 "-- tandem: found"
[ -z "${FAIL_CMAKE:-}" ] || { echo "CMake Error at CMakeLists.txt:38 (find_package):"; exit 1; }'
job() { env -u VERBOSE PATH="$bin:$PATH" TANDEM_MPIRUN=/nonexistent "$@" bash "$repo/ci/quickstart.sh" >"$work/log" 2>&1; }

job FLAG="$work/seen" & pid=$!
for i in $(seq 100); do grep -q '^build: 273/273' "$work/log" 2>/dev/null && { touch "$work/seen"; break; }; sleep 0.1; done
wait "$pid" || { rc=$?; cat "$work/log"; fail "the job with passing stubs exited $rc"; }
[ ! -e "$work/seen.late" ] || fail "the build's progress reached the log only when the build had ended (buffered)"
n=$(wc -l <"$work/log")
(( n <= 60 )) || { head -20 "$work/log"; fail "a passing job's log is $n lines (> 60)"; }
for want in '^== quickstart 1/3' '^deps: apt-get install of [0-9]+ packages: done in' '^python: pip install: done in' \
  '^python: .* with jax' '^-- tandem: found 9$' '^configure: done in' '^build: 273/273 steps \(100%\)' '^== quickstart 3/3' '^== quickstart: passed in'; do
  grep -qE "$want" "$work/log" || { cat "$work/log"; fail "no line /$want/ in the log"; }
done
! grep -qE 'Unpacking|Collecting|-- Detecting' "$work/log" || fail "a tool's chatter in the log"
(( $(grep -c Unpacking "$repo/results/logs/apt-install.log") == 1200 )) || fail "apt's output not kept in its log"

rm -rf "$repo/.venv" "$repo/build"
job FAIL_APT=libexample-dev; rc=$?
(( rc == 100 )) || { cat "$work/log"; fail "a failing apt-get install: exit $rc, not its 100"; }
grep -q '^deps: apt-get install of [0-9]* packages: FAILED (exit 100)' "$work/log" && grep -q '^E: Unable to locate package libexample-dev' "$work/log" ||
  { cat "$work/log"; fail "a failing apt-get install: no exit or no tail in the log"; }
job FAIL_CMAKE=1; rc=$?
(( rc == 1 )) && grep -q '^configure: FAILED (exit 1)' "$work/log" && grep -q '^CMake Error at' "$work/log" ||
  { cat "$work/log"; fail "a failing configure: exit $rc, or no tail in the log"; }
echo "quickstart_log: ok ($n lines when passing)"
