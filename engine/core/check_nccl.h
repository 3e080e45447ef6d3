// NCCL_CHECK (the family and its formatter: check.h). The device is the current CUDA
// device, which the NCCL communicator sets to its own before every call.
#pragma once
#include <nccl.h>

#include "engine/core/check_cuda.h"

#define NCCL_CHECK(expr)                                                                 \
  TANDEM_LIBRARY_CHECK("NCCL", #expr, expr, ncclSuccess,                                 \
                       ::tandem::check::current_cuda_device(), ncclGetErrorString, -1)
