// MPI_CHECK (the family and its formatter: check.h). No CUDA device applies; the rank is
// the launcher's, else MPI_COMM_WORLD's when MPI is initialised.
#pragma once
#include <mpi.h>

#include <string>

#include "engine/core/check.h"

namespace tandem::check {
// MPI's text for an error code.
inline std::string mpi_error_string(int rc) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) return cat("MPI error code ", rc);
  return std::string(msg, size_t(len));
}
// The world rank when MPI is up (initialised and not finalised), else -1.
inline int mpi_world_rank() {
  int init = 0, fin = 0, r = -1;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
}  // namespace tandem::check

#define MPI_CHECK(expr)                                                                  \
  TANDEM_LIBRARY_CHECK("MPI", #expr, expr, MPI_SUCCESS, ::tandem::check::kNoDevice,      \
                       ::tandem::check::mpi_error_string, ::tandem::check::mpi_world_rank())
