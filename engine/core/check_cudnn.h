// CUDNN_CHECK (the family and its formatter: check.h).
#pragma once
#include <cudnn.h>

#include "engine/core/check_cuda.h"

#define CUDNN_CHECK(expr)                                                                  \
  do {                                                                                     \
    cudnnStatus_t tandem_st_ = (expr);                                                     \
    if (tandem_st_ != CUDNN_STATUS_SUCCESS)                                                \
      ::tandem::check::throw_failure({"cuDNN", #expr, __FILE__, __LINE__},                 \
                                     ::tandem::check::current_cuda_device(),               \
                                     cudnnGetErrorString(tandem_st_));                     \
  } while (0)
