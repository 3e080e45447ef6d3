// Order keys for NaN-propagating max / min on NCCL, whose ncclMax / ncclMin on floats keep the non-NaN operand. Each
// float becomes a signed integer whose integer order is the float order with -0 < +0 and NaN beyond every number (above
// +inf for max, below -inf for min), so an integer ncclMax / ncclMin gives tandem's rule (docs/COLLECTIVES.md);
// decoding turns the extreme key back into NaN. f32 → i32 keys, f64 → i64, f16 / bf16 → i32 (NCCL has no 16-bit integer
// type). The launchers enqueue on `stream` and return the launch status.
#pragma once
#include <cstdint>

#include <cuda_runtime.h>

namespace tandem::comm::order_keys {

enum class Bits { f16, bf16, f32, f64 };
// Bytes of one key for a value of `b` (4 or 8).
int key_bytes(Bits b);
cudaError_t encode(const void* values, void* keys, int64_t n, Bits b, bool for_max, cudaStream_t stream);
cudaError_t decode(const void* keys, void* values, int64_t n, Bits b, cudaStream_t stream);

}  // namespace tandem::comm::order_keys
