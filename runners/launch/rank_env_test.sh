#!/usr/bin/env bash
# rank_env.sh: rank, local rank and world size from Open MPI, PMI or Slurm variables, and one
# GPU per local rank — never two ranks on one GPU, never overriding a scheduler's binding.
# A fake nvidia-smi on PATH stands in for a node with 2 GPUs.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
printf '#!/bin/sh\necho "GPU 0: fake"\necho "GPU 1: fake"\n' > "$fake/nvidia-smi"
chmod +x "$fake/nvidia-smi"
fail() { echo "FAIL: $*" >&2; exit 1; }
show='echo "$TANDEM_RANK $TANDEM_LOCAL_RANK $TANDEM_WORLD_SIZE ${CUDA_VISIBLE_DEVICES-unset} ${TANDEM_GPU_BOUND-0}"'
run() { env -i PATH="$fake:/usr/bin:/bin" "$@" "$here/rank_env.sh" sh -c "$show"; }
expect() { local want=$1; shift; got=$(run "$@"); [[ $got == "$want" ]] || fail "$*: got '$got', want '$want'"; }

expect "5 1 8 1 1" OMPI_COMM_WORLD_RANK=5 OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_SIZE=8
expect "6 2 8 unset 0" OMPI_COMM_WORLD_RANK=6 OMPI_COMM_WORLD_LOCAL_RANK=2 OMPI_COMM_WORLD_SIZE=8  # no 3rd GPU
expect "3 0 4 0 1" SLURM_PROCID=3 SLURM_LOCALID=0 SLURM_NTASKS=4
expect "2 1 4 1 1" PMI_RANK=2 MPI_LOCALRANKID=1 PMI_SIZE=4
expect "1 1 2 7 0" OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_SIZE=2 CUDA_VISIBLE_DEVICES=7
expect "0 0 1 0 1" HOME=/  # no launcher variable: rank 0 of 1 on GPU 0

# CPU threads: a rank bound to some cores gets those; unbound ranks share the node's cores;
# a value the user set is kept.
threads() { env -i PATH="$fake:/usr/bin:/bin" "$@" "$here/rank_env.sh" sh -c 'echo "$OPENBLAS_NUM_THREADS $TANDEM_LSTM_THREADS"'; }
cores=$(nproc --all)
want=$((cores / 2)); (( want >= 1 )) || want=1
got=$(threads OMPI_COMM_WORLD_LOCAL_SIZE=2)
[[ $got == "$want $want" ]] || fail "2 unbound ranks on $cores cores: got '$got', want '$want $want'"
got=$(threads OMPI_COMM_WORLD_LOCAL_SIZE=$((cores * 4)))
[[ $got == "1 1" ]] || fail "more ranks than cores: got '$got', want '1 1'"
got=$(threads OMPI_COMM_WORLD_LOCAL_SIZE=1)
[[ $got == "$cores $cores" ]] || fail "1 rank on $cores cores: got '$got', want all"
got=$(threads OMPI_COMM_WORLD_LOCAL_SIZE=2 OPENBLAS_NUM_THREADS=3)
[[ $got == "3 " ]] || fail "OPENBLAS_NUM_THREADS=3 set by the user: got '$got', want it kept"
if command -v taskset >/dev/null && (( cores > 1 )); then
  got=$(taskset -c 0 env -i PATH="$fake:/usr/bin:/bin" OMPI_COMM_WORLD_LOCAL_SIZE=2 "$here/rank_env.sh" sh -c 'echo "$OPENBLAS_NUM_THREADS"')
  [[ $got == 1 ]] || fail "a rank bound to core 0: got '$got' threads, want 1"
fi
echo "PASS: rank_env.sh maps ranks, binds one GPU per local rank and shares the CPU cores"
