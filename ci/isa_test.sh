#!/usr/bin/env bash
# The ISA-sensitive tests on another ISA than the build host's: the kernels pick their code per CPU (the vector clones,
# oneDNN's ISA, OpenBLAS's core), so a claim checked on this AVX-512 machine is run again under qemu-x86_64 -cpu Haswell
# (user-mode TCG: AVX2 and FMA, no AVX-512): the LSTM's thread determinism and gate loop, the CPU dot/sgemm/vector-math
# tests, a dot preset on every quick f32 shape through tandem (--in-process: a case worker is exec'd outside qemu,
# natively), and the record context naming the ISA that ran (x86-64-v3, oneDNN avx2, and avx2 natively under
# ONEDNN_MAX_CPU_ISA=AVX2). Exit 77 (a SKIP naming why) without qemu-x86_64 (apt-get install qemu-user).
#   ci/isa_test.sh BUILD_DIR
set -uo pipefail
build=${1:?usage: ci/isa_test.sh BUILD_DIR}
command -v qemu-x86_64 >/dev/null || { echo "SKIP: qemu-x86_64 is absent: apt-get install qemu-user (ci/deps.txt)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
haswell() { qemu-x86_64 -cpu Haswell "$@" 2> >(grep -v "TCG doesn't support requested feature" >&2); }
run() {  # NAME CMD...: runs CMD, says ok or FAIL with the log's tail
  local name=$1 t0=$SECONDS; shift
  if "$@" >"$work/$name.log" 2>&1; then echo "ok: $name ($((SECONDS - t0)) s)"
  else echo "FAIL: $name (exit $?, $((SECONDS - t0)) s)"; tail -30 "$work/$name.log"; fail=1; fi
}
# isa RECORDS FIELD VALUE: the records' context names VALUE as isa.FIELD.
isa() {
  python3 - "$@" <<'PY'
import json, sys
path, field, want = sys.argv[1:4]
got = json.load(open(path))["records"][0]["context"].get("isa", {}).get(field)
print(f"context.isa.{field}: {got}")
sys.exit(0 if got == want else 1)
PY
}
run lstm_threads_haswell haswell "$build/engine/engine_lstm_cpu_test" --gtest_filter='LstmCpuThreads.*:LstmGates.*'
# The three 24-million-point libm sweeps of VectorMathExp take 86-102 s each under qemu (load 12-14):
# left to ISA_TEST_FULL=1 (every test, ≈ 5 min); the rest of engine_dot_test takes ≈ 20 s.
dot_filter='-VectorMathExp.*Libm*'
[ -z "${ISA_TEST_FULL:-}" ] || dot_filter='*'
run engine_dot_haswell haswell "$build/engine/engine_dot_test" --gtest_filter="$dot_filter"
presets='/in:f32/alg:'  # every preset on every quick shape with f32 inputs
# `check`, not `run -n 1`: the kernels against the reference, untimed beside an emulated canary.
run dot_presets_haswell haswell "$build/tandem" check -q --in-process --suite dot --profile quick --filter "$presets" --backend cpu \
  --out "$work/dot"
run isa_recorded_haswell isa "$work/dot/records.json" vector_clones x86-64-v3
if grep -q '"onednn"' "$work/dot/records.json" 2>/dev/null; then
  run onednn_isa_recorded_haswell isa "$work/dot/records.json" onednn avx2
  ONEDNN_MAX_CPU_ISA=AVX2 "$build/tandem" check -q --suite dot --profile quick --filter "$presets" --backend cpu \
    --out "$work/capped" >"$work/capped.log" 2>&1
  run onednn_isa_recorded_capped isa "$work/capped/records.json" onednn avx2
fi
exit $fail
