// Which process of a launched job this is, read from the launcher's environment (Open MPI,
// MPICH/Hydra, PMIx, Slurm) without touching MPI, so it works in builds without MPI and
// before MPI_Init. Under mpirun/srun only rank 0 writes files (records, summaries); every
// rank still runs every case, since collective cases need all ranks.
#pragma once
#include <cstdlib>
#include <string>

namespace tandem::comm {

// The world rank the launcher announces, or -1 when no launcher variable is set.
inline int launcher_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* s = std::getenv(v); s && *s) return std::atoi(s);
  return -1;
}

// The rank on this node (picks the GPU), or -1 when no launcher variable is set.
inline int launcher_local_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "LOCAL_RANK"})
    if (const char* s = std::getenv(v); s && *s) return std::atoi(s);
  return -1;
}

// True for rank 0 of a launched job and for a process started without a launcher.
inline bool is_writer_rank() { return launcher_rank() <= 0; }

}  // namespace tandem::comm
