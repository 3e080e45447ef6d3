// The NCCL backend (built when NCCL is found): device buffers on the GPU picked by the
// local rank. Bootstrap: rank 0 makes the unique id and MPI_Bcast shares it; subgroups
// come from ncclCommSplit. Control-plane calls go through the MPI communicator it wraps.
#pragma once
#include <memory>
#include <string>

#include "engine/comm/mpi_communicator.h"

namespace tandem::comm {

// Throws unsupported (a skip) when NCCL is not built or no GPU is visible.
std::unique_ptr<Communicator> make_nccl_communicator(MpiCommunicator& mpi);
bool nccl_available(std::string* why = nullptr);

}  // namespace tandem::comm
