// CUDNN_CHECK (the family and its formatter: check.h).
#pragma once
#include <cudnn.h>

#include "engine/core/check_cuda.h"

#define CUDNN_CHECK(expr)                                                                \
  TANDEM_LIBRARY_CHECK("cuDNN", #expr, expr, CUDNN_STATUS_SUCCESS,                       \
                       ::tandem::check::current_cuda_device(), cudnnGetErrorString, -1)
