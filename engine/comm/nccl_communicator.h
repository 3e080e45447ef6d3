// The NCCL backend (built when NCCL is found): device buffers on the GPU picked by the
// local rank. Bootstrap: rank 0 makes the unique id and MPI_Bcast shares it; subgroups
// come from ncclCommSplit. Control-plane calls go through the MPI communicator it wraps.
#pragma once
#include <memory>
#include <string>

#include "engine/comm/mpi_communicator.h"

namespace tandem::comm {

// Throws unsupported (a skip) when NCCL is not built or a rank has no GPU — on every rank,
// naming the rank and the reason; a failed ncclGetUniqueId on rank 0 is an internal error
// on every rank. A watchdog (init_timeout_s) aborts the job if init stalls on some rank.
std::unique_ptr<Communicator> make_nccl_communicator(MpiCommunicator& mpi, double init_timeout_s = 300);
bool nccl_available(std::string* why = nullptr);

}  // namespace tandem::comm
