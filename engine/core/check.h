// The one family of CHECK macros for library calls. A failed call throws tandem::Error
// (internal) whose message names the library, the expression, file:line, the host, the rank
// (launcher environment, else MPI's), the CUDA device where one is meaningful, and the
// library's own error string — one formatter for all of them, so every failure reads alike.
// The macros live in one small header per library, each including only its library:
//   engine/core/check_cuda.h   CUDA_CHECK, CUDA_CHECK_LAUNCH, CUBLAS_CHECK
//   engine/core/check_cudnn.h  CUDNN_CHECK
//   engine/core/check_nccl.h   NCCL_CHECK
//   engine/core/check_mpi.h    MPI_CHECK
// so this header compiles in translation units without CUDA, MPI or NCCL.
#pragma once
#include <string>

#include "engine/core/error.h"

namespace tandem::check {

// Device values for a failure: none applies (MPI), or the current one could not be read.
inline constexpr int kNoDevice = -2;
inline constexpr int kUnknownDevice = -1;

// The call that failed, as the macro saw it.
struct Site {
  const char* library;  // "CUDA", "cuBLAS", "cuDNN", "NCCL", "MPI"
  const char* expr;     // the expression as written
  const char* file;
  int line;
};

// Where the process ran when it failed.
struct Place {
  std::string host;
  int rank = -1;            // -1: not launched as one of several ranks
  int device = kNoDevice;   // CUDA device ordinal, kNoDevice or kUnknownDevice
};

// "<lib> call failed: <expr> at <file>:<line> [host <h>, rank <r>, cuda device <d>]: <what>"
std::string failure_message(const Site& site, const Place& place, const std::string& what);

// Host and rank of this process (the launcher's rank, else `mpi_rank` when >= 0).
Place place_now(int device, int mpi_rank = -1);

// Throws Error(internal) with failure_message for this process's place.
[[noreturn]] void throw_failure(const Site& site, int device, const std::string& what, int mpi_rank = -1);

// A device context broken for the rest of the process by a sticky error (CUDA: an illegal
// address, a launch failure; every later call fails again). A case worker that sees it after a
// case ends itself, so the next case starts in a fresh process (runners/cli/case_workers.h).
void note_device_context_broken(const std::string& why);
const std::string* device_context_broken();  // why, or null while the context is sound

}  // namespace tandem::check

// The body every family's macro shares: evaluates `expr` once; unless it equals `ok`, throws
// with `text` (the expression as written, stringised by the family's macro so that macros
// inside it, like MPI_COMM_WORLD, stay unexpanded) and `describe(result)`, the library's words.
#define TANDEM_LIBRARY_CHECK(library, text, expr, ok, device, describe, mpi_rank)          \
  do {                                                                                   \
    auto tandem_rc_ = (expr);                                                            \
    if (!(tandem_rc_ == (ok)))                                                           \
      ::tandem::check::throw_failure({library, text, __FILE__, __LINE__}, (device),      \
                                     describe(tandem_rc_), (mpi_rank));                  \
  } while (0)
