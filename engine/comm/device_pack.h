// The CUDA kernels of the NCCL backend's LocalOps (local_ops.h): the block transpose of a non-leading axis, pmean's
// division and pargmax / pargmin's index offer, each running the element math of local_math.h. The launchers enqueue on
// `stream` and return the launch status (the caller checks it); dtypes outside f64 f32 f16 bf16 i32 throw unsupported.
#pragma once
#include <cstdint>

#include <cuda_runtime.h>

#include "common/dtype.h"

namespace tandem::comm::device_pack {

cudaError_t swap01(const void* src, void* dst, int64_t A, int64_t B, int64_t bytes, cudaStream_t stream);
cudaError_t divide(const void* sum, DType in_t, void* out, DType out_t, int64_t count, int64_t n, cudaStream_t stream);
cudaError_t offer_index(const void* x, const void* best, DType t, int64_t count, int32_t me, int32_t* idx,
                        cudaStream_t stream);
cudaError_t bool_to_i32(const uint8_t* b, int32_t* out, int64_t count, cudaStream_t stream);
cudaError_t i32_to_bool(const int32_t* v, uint8_t* out, int64_t count, cudaStream_t stream);

}  // namespace tandem::comm::device_pack
