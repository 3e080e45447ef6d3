// Where this process runs: the host name and the rank the launcher (Open MPI, MPICH/Hydra,
// PMIx, Slurm) announces in the environment, read without touching MPI, so it works in
// builds without MPI and before MPI_Init. Under mpirun/srun only rank 0 writes files
// (records, summaries); every rank still runs every case, since collective cases need all ranks.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace tandem {

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

// This machine's host name ("unknown host" when the system will not say).
inline std::string host_name() {
  char h[256] = {};
  if (gethostname(h, sizeof h - 1) != 0) return "unknown host";
  return h;
}

}  // namespace tandem
