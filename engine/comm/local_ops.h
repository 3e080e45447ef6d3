// LocalOps: the local (no peer) data steps of tandem's collectives — pack / unpack copies,
// the block transpose of a non-leading axis, zero fill, pmean's division, pargmax's index
// offer, bool <-> i32 — on a communicator's device, ordered with its data-plane calls and
// finished on return (blocking, as the transport calls are). The host implementation serves
// the MPI backend; the NCCL backend runs the same math (local_math.h) as CUDA kernels on its
// ordered stream (device_pack.h). Pointers are on Communicator::device().
#pragma once
#include <cstdint>
#include <vector>

#include "common/dtype.h"

namespace tandem::comm {

struct CopySpan {
  const void* src;
  void* dst;
  int64_t bytes;
};

class LocalOps {
 public:
  virtual ~LocalOps() = default;
  // Every span copied (spans must not overlap one another's destinations).
  virtual void copy(const std::vector<CopySpan>& spans) = 0;
  virtual void zero(void* dst, int64_t bytes) = 0;
  // dst[b][a][:] = src[a][b][:] with blocks of `bytes` bytes (moves axis B in front of A).
  virtual void swap01(const void* src, void* dst, int64_t A, int64_t B, int64_t bytes) = 0;
  // pmean's division, JAX's way: out (dtype out_t) = sum / n; f64 in f64, everything else
  // in f32 (an integer sum converted to f32 first), rounded once to out_t.
  virtual void divide(const void* sum, DType in_t, void* out, DType out_t, int64_t count, int64_t n) = 0;
  // pargmax / pargmin's offer: idx[i] (i32) = me where x[i] equals best[i] (or both are
  // NaN), else INT32_MAX, so an i32 pmin of the offers picks the lowest holder.
  virtual void offer_index(const void* x, const void* best, DType t, int64_t count, int32_t me, int32_t* idx) = 0;
  // bool ↔ i32 (JAX's conversions around reductions of bool): true → 1, nonzero → true.
  virtual void bool_to_i32(const uint8_t* b, int32_t* out, int64_t count) = 0;
  virtual void i32_to_bool(const int32_t* v, uint8_t* out, int64_t count) = 0;
};

// The host implementation (memcpy, memset, loops over local_math.h).
LocalOps& host_local_ops();

}  // namespace tandem::comm
