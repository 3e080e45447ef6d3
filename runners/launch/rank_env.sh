#!/usr/bin/env bash
# Per-rank environment: world rank, local rank and size from Open MPI, PMI or Slurm, and one
# GPU per local rank (CUDA_VISIBLE_DEVICES) unless the scheduler already bound one.
set -euo pipefail
export TANDEM_RANK=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${SLURM_PROCID:-0}}}
export TANDEM_LOCAL_RANK=${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-${SLURM_LOCALID:-0}}}
export TANDEM_WORLD_SIZE=${OMPI_COMM_WORLD_SIZE:-${PMI_SIZE:-${SLURM_NTASKS:-1}}}
if [[ -z ${CUDA_VISIBLE_DEVICES:-} ]] && command -v nvidia-smi >/dev/null 2>&1; then
  ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
  # One GPU per local rank, never shared: NCCL refuses two ranks on one device, so a rank
  # beyond the node's GPUs stays unbound and the NCCL backend reports it ("local rank N has
  # no GPU of its own") as a skip on every rank, while its MPI cases still run.
  if (( TANDEM_LOCAL_RANK < ngpu )); then
    export CUDA_VISIBLE_DEVICES=$TANDEM_LOCAL_RANK
    export TANDEM_GPU_BOUND=1  # the NCCL backend then uses device 0, the one it sees
  fi
fi
exec "$@"
