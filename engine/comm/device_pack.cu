// The kernels behind device_pack.h. Every kernel is a grid-stride loop over its output
// elements, each thread writing only its own elements (no shared memory, no atomics: no
// race between threads); the math per element is local_math.h's, shared with the host.
#include <cstdint>
#include <type_traits>

#include "engine/comm/device_pack.h"
#include "engine/comm/local_dispatch.h"
#include "engine/comm/local_math.h"

namespace tandem::comm::device_pack {
namespace {

constexpr unsigned kThreads = 256;
unsigned blocks(int64_t n) { return unsigned(n / kThreads + 1 < 4096 ? n / kThreads + 1 : 4096); }

// Word w of destination block j = t / wpb is word t % wpb of source block swap01_source_block(j).
template <class W>
__global__ void swap01_kernel(const W* s, W* d, int64_t A, int64_t B, int64_t wpb) {
  const int64_t total = A * B * wpb;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < total; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = t / wpb, k = t - j * wpb;
    d[t] = s[local_math::swap01_source_block(j, A, B) * wpb + k];
  }
}

template <class In, class Out>
__global__ void divide_kernel(const In* sum, Out* out, int64_t count, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = local_math::mean_of<In, Out>(sum[i], n);
}

template <class T>
__global__ void offer_kernel(const T* x, const T* best, int64_t count, int32_t me, int32_t* idx) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    idx[i] = local_math::offer(x[i], best[i], me);
}

__global__ void bool_to_i32_kernel(const uint8_t* b, int32_t* out, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = local_math::i32_of(b[i]);
}

__global__ void i32_to_bool_kernel(const int32_t* v, uint8_t* out, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = local_math::bool_of(v[i]);
}

template <class W>
cudaError_t swap01_as(const void* src, void* dst, int64_t A, int64_t B, int64_t bytes, cudaStream_t s) {
  const int64_t wpb = bytes / int64_t(sizeof(W));
  swap01_kernel<W><<<blocks(A * B * wpb), kThreads, 0, s>>>(static_cast<const W*>(src), static_cast<W*>(dst), A, B, wpb);
  return cudaGetLastError();
}

}  // namespace

cudaError_t swap01(const void* src, void* dst, int64_t A, int64_t B, int64_t bytes, cudaStream_t s) {
  if (A * B * bytes == 0) return cudaSuccess;
  // The widest word that divides the block and both base addresses: a block of 6 f16 moves
  // as 3 four-byte words, a 1 KiB block as 64 sixteen-byte words.
  const uint64_t align = uint64_t(bytes) | reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst);
  if (align % 16 == 0) return swap01_as<uint4>(src, dst, A, B, bytes, s);
  if (align % 8 == 0) return swap01_as<uint64_t>(src, dst, A, B, bytes, s);
  if (align % 4 == 0) return swap01_as<uint32_t>(src, dst, A, B, bytes, s);
  if (align % 2 == 0) return swap01_as<uint16_t>(src, dst, A, B, bytes, s);
  return swap01_as<uint8_t>(src, dst, A, B, bytes, s);
}

cudaError_t divide(const void* sum, DType in_t, void* out, DType out_t, int64_t count, int64_t n, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  return local_math::with_type(in_t, "pmean", [&](auto in) {
    using In = decltype(in);
    return local_math::with_type(out_t, "pmean", [&](auto o) {
      using Out = decltype(o);
      if constexpr (std::is_same_v<Out, int32_t>) {
        return cudaErrorInvalidValue;  // pmean's output is floating (collectives.cc)
      } else {
        divide_kernel<In, Out><<<blocks(count), kThreads, 0, s>>>(static_cast<const In*>(sum), static_cast<Out*>(out), count, n);
        return cudaGetLastError();
      }
    });
  });
}

cudaError_t offer_index(const void* x, const void* best, DType t, int64_t count, int32_t me, int32_t* idx,
                        cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  return local_math::with_type(t, "pargmax/pargmin", [&](auto v) {
    using T = decltype(v);
    offer_kernel<T><<<blocks(count), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<const T*>(best), count, me, idx);
    return cudaGetLastError();
  });
}

cudaError_t bool_to_i32(const uint8_t* b, int32_t* out, int64_t count, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  bool_to_i32_kernel<<<blocks(count), kThreads, 0, s>>>(b, out, count);
  return cudaGetLastError();
}

cudaError_t i32_to_bool(const int32_t* v, uint8_t* out, int64_t count, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  i32_to_bool_kernel<<<blocks(count), kThreads, 0, s>>>(v, out, count);
  return cudaGetLastError();
}

}  // namespace tandem::comm::device_pack
