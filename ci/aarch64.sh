#!/usr/bin/env bash
# tandem for arm64 on a Debian 12 x86-64 host: Debian's cross compiler and the arm64 libraries through multiarch, built
# with cmake/toolchains/aarch64-linux-gnu.cmake, then the engine and reference unit tests and the quick profile under
# QEMU user mode (qemu-aarch64). Idempotent, for a nightly job: each step does nothing that is already done.
#   ci/aarch64.sh [STEP...]   STEP: deps binfmt mpiroot configure build emulator test isa quick mpi
#   (default: all, in order; mpiroot and mpi: Open MPI in an arm64 root, ci/aarch64_mpi.sh)
# Env: BUILD_DIR (default build-aarch64), JOBS (default 2), OUT (quick's output, default BUILD_DIR/quick),
# AARCH64_GTEST_FILTER (narrows the unit tests), AARCH64_TEST_TIMEOUT (seconds a test binary may run, default 3600).
# Exit: the first failing step's code (the quick profile's codes as ci/quick_run.sh's).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-aarch64}
jobs=${JOBS:-2}
# The test binaries `test` runs: engine (kernels, IR, passes, vmap, vjp, conv, LSTM, dot/sgemm/ vector math), the naive
# reference and the harness (the record's ISA context), last: step_build builds it with tandem. (comm_local_ops_test,
# the engine's MPI part, runs in the `mpi` step: ci/aarch64_mpi.sh.)
test_targets=(engine_core_test engine_ir_test program_json_test engine_passes_test engine_remat_test
  engine_vmap_test engine_conv_cpu_test engine_lstm_cpu_test engine_dot_test engine_vector_math_exp_ubsan_test
  reference_test reference_lstm_test reference_grad_test harness_test)
# Then the layers above (built last, by step_build's last stage): the engine against the reference
# per primitive and its vjp, the error model, the fuzzer's oracle and generator rows, the f8/TF32
# roundings, the dot gate's anchor, the remat/scan-hoist/LSTM suites' own tests and the CLI's
# .npy and LSTM/dot command tests. (suite_cases_test is the quick profile, which `quick` runs.)
upper_test_targets=(prims_vs_reference_test reference_vjp_test error_spec_test program_fuzz_test
  tf32_rounding_test f8_rounding_test dot_gate_anchor_test program_json_cases_test remat_measure_test
  remat_scan_models_test remat_offload_test remat_policy_statement_test scan_hoist_oracle_test
  scan_hoist_grad_test lstm_bound_test sweep_format_test dot_command_test lstm_command_test)
# ci/deps_aarch64.txt: the cross compiler, QEMU and the arm64 libraries (NAME:arm64). Not there:
# libdnnl-dev:arm64 clashes with the amd64 one on dnnl_config.h (GPU runtime OCL vs none):
# unpacked into the build directory instead (dnnl_root below), its library from libdnnl2:arm64.
mapfile -t pkgs < <(grep -v -E '^\s*(#|$)' "$root/ci/deps_aarch64.txt")
dnnl_root=$build/arm64-libdnnl-dev
# The multiarch loader and libc (libc6:arm64), never the cross toolchain's /usr/aarch64-linux-gnu:
# see cmake/toolchains/aarch64-linux-gnu.cmake and step_emulator.
qemu=(qemu-aarch64 -L /)
. "$root/ci/aarch64_mpi.sh"
# A build against the root's Open MPI, run outside the root: its binaries find libmpi by their run
# path, but libmpi's own dependencies (libopen-rte, libopen-pal, …) only where the loader looks,
# and Open MPI its components under its prefix (else MPI_Init fails: opal_shmem_base_select).
# QEMU gives the guest, and every process it execs, both; a build without MPI ignores them.
[ -f "$mpi_root/usr/lib/aarch64-linux-gnu/libmpi.so.40" ] &&
  qemu+=(-E "LD_LIBRARY_PATH=$mpi_root/usr/lib/aarch64-linux-gnu" -E "OPAL_PREFIX=$mpi_root/usr")

step_deps() {
  local missing=() p
  dpkg --print-foreign-architectures | grep -qx arm64 || { dpkg --add-architecture arm64; apt-get update -q; }
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
  if ((${#missing[@]})); then
    # Never at the cost of the native build's packages: refuse a transaction that removes any.
    if apt-get -s install --no-install-recommends "${missing[@]}" | grep '^Remv'; then
      echo "error: installing ${missing[*]} would remove the packages above; not done" >&2; return 5
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" || return
  fi
  if [ ! -f "$dnnl_root/usr/lib/aarch64-linux-gnu/cmake/dnnl/dnnl-config.cmake" ]; then
    local tmp; tmp=$(mktemp -d)
    (cd "$tmp" && apt-get download libdnnl-dev:arm64 2>/dev/null) || return
    mkdir -p "$dnnl_root" && dpkg-deb -x "$tmp"/libdnnl-dev_*_arm64.deb "$dnnl_root" && rm -rf "$tmp" || return
    # The config imports the library next to itself: point it at libdnnl2:arm64's.
    ln -sf /usr/lib/aarch64-linux-gnu/libdnnl.so.2.6 "$dnnl_root/usr/lib/aarch64-linux-gnu/libdnnl.so.2.6"
  fi
}

step_configure() {
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Tests are listed at ctest time (PRE_TEST), not at build time under QEMU.
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/aarch64-linux-gnu.cmake" \
    -DTANDEM_WITH_CUDA=OFF $(mpi_cmake_args | paste -sd' ') \
    -Ddnnl_DIR="$dnnl_root/usr/lib/aarch64-linux-gnu/cmake/dnnl" \
    -DCMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE=PRE_TEST "${launcher[@]}"
}

# In stages, most telling first (on a loaded runner an early stage is ready long before the
# last): the CPU kernels' and the reference's tests, the other engine tests, then tandem and the
# harness test (the harness and the suites: over half of the 258 compiles).
step_build() {
  cmake --build "$build" -j "$jobs" --target engine_dot_test engine_lstm_cpu_test reference_test -- -k 0 || return
  cmake --build "$build" -j "$jobs" --target "${test_targets[@]:0:${#test_targets[@]}-1}" -- -k 0 || return
  cmake --build "$build" -j "$jobs" --target tandem harness_test -- -k 0 || return
  cmake --build "$build" -j "$jobs" --target "${upper_test_targets[@]}" -- -k 0
}

# The emulator must finish a two-thread arm64 program. `qemu-aarch64 -L /usr/aarch64-linux-gnu`
# (the cross toolchain's loader, glibc 2.36-8cross1) with the multiarch libc.so.6 the libraries
# load (2.36-9+deb12u14 here) hangs in the first pthread_create: every engine test binary hung
# at start-up in OpenBLAS's constructor that way, which looked like a slow start under QEMU.
step_emulator() {
  local src=$build/emulator_probe.cc bin=$build/emulator_probe
  printf '%s\n' '#include <cstdio>' '#include <thread>' \
    'int main() { int r = 1; std::thread([&r] { r = 0; }).join(); std::puts(r ? "no" : "threads: ok"); return r; }' >"$src"
  aarch64-linux-gnu-g++ -O1 -pthread "$src" -o "$bin" || return 5
  timeout 60 "${qemu[@]}" "$bin" && return 0
  echo "error: a two-thread arm64 program did not finish under '${qemu[*]}' in 60 s" >&2
  echo "  hint: the loader QEMU takes and libc6:arm64's libc.so.6 must be one glibc build (-L /)" >&2
  return 5
}

# Case workers under QEMU: a worker is an exec of /proc/self/exe, which the kernel can run only
# where binfmt_misc hands arm64 ELF files to qemu-aarch64. As root, mount binfmt_misc if it is not
# and register the static QEMU for them (binfmt_static, ci/aarch64_mpi.sh: the one entry serves
# the arm64 root's chroot too); where that is refused (a container without the privilege, no
# network for qemu-user-static), quick runs --in-process and says so: a narrower run, not a failure.
binfmt_entry=/proc/sys/fs/binfmt_misc/qemu-aarch64
step_binfmt() {
  [ -e /proc/sys/fs/binfmt_misc/register ] ||
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || true
  if [ -w /proc/sys/fs/binfmt_misc/register ] && binfmt_static; then
    echo "binfmt: $(head -1 "$binfmt_entry"), $(sed -n 's/^interpreter //p' "$binfmt_entry")"
  else
    echo "binfmt: not available (no binfmt_misc or no right to register: run as root): case" \
      "workers will not run; quick runs --in-process"
  fi
}

# Each test binary once under qemu-aarch64 (ctest would start QEMU once per discovered test, a
# few thousand times). AARCH64_GTEST_FILTER narrows them (a gtest filter).
step_test() {
  local fail=0 t bin t0
  for t in "${test_targets[@]}" "${upper_test_targets[@]}"; do
    bin=$(find "$build" -name "$t" -type f -perm -u+x | head -1)
    [ -n "$bin" ] || { echo "FAIL: $t not built"; fail=1; continue; }
    t0=$SECONDS
    if timeout "${AARCH64_TEST_TIMEOUT:-3600}" "${qemu[@]}" "$bin" --gtest_brief=1 --gtest_filter="${AARCH64_GTEST_FILTER:-*}" >"$build/$t.log" 2>&1; then
      echo "ok: $t ($((SECONDS - t0)) s, $(grep -o '[0-9]* tests\? from [0-9]* test suites\? ran' "$build/$t.log"))"
    else
      echo "FAIL: $t (exit $?, $((SECONDS - t0)) s; $build/$t.log)"; grep -E '^\[  FAILED  \]' "$build/$t.log" | head -20; fail=1
    fi
  done
  return $fail
}

# The ISA-sensitive tests (the LSTM's thread determinism and gate loop, the CPU dot/sgemm/vector math; the
# 24-million-point libm sweeps left to `test`) again on other arm64 CPUs that QEMU models: cortex-a57 (ARMv8.0: ASIMD
# only, no SVE, no half-precision arithmetic) and a64fx (SVE at 512 bits), the first with OpenBLAS held to its generic
# ARMv8 kernels. `test` ran them on QEMU's default model, max (every feature QEMU has: SVE, SVE2, bf16, i8mm).
step_isa() {
  local fail=0 model t0 t
  local -A filter=([engine_lstm_cpu_test]='LstmCpuThreads.*:LstmGates.*' [engine_dot_test]='-VectorMathExp.*Libm*')
  for model in cortex-a57 a64fx; do
    for t in engine_lstm_cpu_test engine_dot_test; do
      t0=$SECONDS
      if QEMU_CPU=$model OPENBLAS_CORETYPE=$([ $model = cortex-a57 ] && echo ARMV8) \
         "${qemu[@]}" "$(find "$build" -name "$t" -type f | head -1)" --gtest_brief=1 \
         --gtest_filter="${filter[$t]}" >"$build/$t.$model.log" 2>&1; then
        echo "ok: $t on $model ($((SECONDS - t0)) s)"
      else
        echo "FAIL: $t on $model ($((SECONDS - t0)) s; $build/$t.$model.log)"; fail=1
      fi
    done
  done
  return $fail
}

# The quick profile as ci/quick_run.sh runs it (no mpirun here: one process), tandem under QEMU
# through a wrapper. --in-process: a case worker is an exec of /proc/self/exe, which runs under
# QEMU only where binfmt_misc hands arm64 binaries to it (qemu-user-binfmt, and a kernel that
# lets this machine register it); without it every worker would fail to start.
step_quick() {
  local out=${OUT:-$build/quick} wrapper=$build/tandem-qemu
  printf '#!/bin/sh\nexec %s "%s" "$@"\n' "${qemu[*]}" "$build/tandem" >"$wrapper"
  chmod +x "$wrapper"
  local worker_flag=(--in-process)
  [ -e "$binfmt_entry" ] && worker_flag=()
  if ((${#worker_flag[@]})); then echo "quick: --in-process (no binfmt_misc entry for arm64)"
  else echo "quick: each case in a worker process, exec'd under QEMU through binfmt_misc"; fi
  TANDEM_MPIRUN=/nonexistent TANDEM="$wrapper" "$root/ci/quick_run.sh" "$out" "${worker_flag[@]}"
}

steps=("$@")
((${#steps[@]})) || steps=(deps binfmt mpiroot configure build emulator test isa quick mpi)
# A failed deps/configure/build stops the job; a failed test step does not keep the others from
# running: the exit code is the first failure's.
rc=0
for s in "${steps[@]}"; do
  t0=$SECONDS src=0
  "step_$s" || src=$?
  echo "aarch64: $s $( ((src)) && echo "FAILED (exit $src)" || echo done) in $((SECONDS - t0)) s (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  if ((src)); then
    ((rc)) || rc=$src
    case $s in deps | configure | build | emulator) exit "$rc" ;; esac
  fi
done
exit "$rc"
