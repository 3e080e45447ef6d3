// Launchers of the reduce_window_max / reduce_window_sum kernels (window_kernels.cu). Plain
// data only (shared by nvcc and the C++20 sources); default stream, launch checked, no sync.
#pragma once
#include <cstdint>

#include "common/dtype.h"
#include "engine/prims/window_plan.h"

namespace tandem::cuda_impl {

// y[o] = max (or sum) over the window of output element o (engine/prims/window_plan.h), for
// the n output elements; the CPU impl's order and accumulator types.
void reduce_window(const void* x, void* y, const WindowPlan& p, DType t, bool max, int64_t n);

}  // namespace tandem::cuda_impl
