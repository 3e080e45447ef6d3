#!/usr/bin/env bash
# Per-rank environment: world rank, local rank and size from Open MPI, PMI or Slurm, one GPU
# per local rank (CUDA_VISIBLE_DEVICES) unless the scheduler already bound one, and on the
# CPU each rank's share of the node's cores for BLAS and the LSTM's row threads.
set -euo pipefail
export TANDEM_RANK=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${SLURM_PROCID:-0}}}
export TANDEM_LOCAL_RANK=${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-${SLURM_LOCALID:-0}}}
export TANDEM_WORLD_SIZE=${OMPI_COMM_WORLD_SIZE:-${PMI_SIZE:-${SLURM_NTASKS:-1}}}
export TANDEM_LOCAL_SIZE=${OMPI_COMM_WORLD_LOCAL_SIZE:-${MPI_LOCALNRANKS:-${SLURM_NTASKS_PER_NODE:-1}}}
# CPU threads (OpenBLAS, OpenMP, tandem's LSTM rows), unless set: the cores the launcher bound this rank to (`--map-by
# ppr:1:socket --bind-to socket`: one socket's cores), or, when it is bound to none (every core allowed), the node's
# cores split among its ranks, so that N ranks on a node never run N × all-cores threads. nproc honours the affinity
# mask, and OMP_NUM_THREADS unless told not to.
if [[ -z ${OPENBLAS_NUM_THREADS:-} ]]; then
  allowed=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
  cores=$(nproc --all)
  threads=$allowed
  if (( allowed >= cores && TANDEM_LOCAL_SIZE > 1 )); then threads=$((cores / TANDEM_LOCAL_SIZE)); fi
  (( threads >= 1 )) || threads=1
  export OPENBLAS_NUM_THREADS=$threads
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$threads} TANDEM_LSTM_THREADS=${TANDEM_LSTM_THREADS:-$threads}
fi
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
