// NCCL_CHECK (the family and its formatter: check.h). The device is the current CUDA
// device, which the NCCL communicator sets to its own before every call.
#pragma once
#include <nccl.h>

#include "engine/core/check_cuda.h"

#define NCCL_CHECK(expr)                                                                   \
  do {                                                                                     \
    ncclResult_t tandem_rc_ = (expr);                                                      \
    if (tandem_rc_ != ncclSuccess)                                                         \
      ::tandem::check::throw_failure({"NCCL", #expr, __FILE__, __LINE__},                  \
                                     ::tandem::check::current_cuda_device(),               \
                                     ncclGetErrorString(tandem_rc_));                      \
  } while (0)
