// Shared pieces of the primitive kernels (included by engine/cuda/*_cuda.cu only): launch
// geometry for grid-stride loops, the dtype -> storage type dispatch, and the load/store
// rule of every elementwise kernel — bf16/f16 compute in f32 and round back with the very
// conversion functions the CPU engine uses (engine/core/half.h, __host__ __device__ under
// nvcc), so a kernel's result is the CPU's bit for bit wherever the math function agrees.
// Every kernel runs on the current device's default stream, the stream the allocator's
// stream-ordered frees (cuda_memory.cc) and cuBLAS/cuDNN use, so no extra ordering is needed.
#pragma once
#include <cstdint>
#include <type_traits>

#include "common/dtype.h"
#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/core/check_cuda.h"

namespace tandem::cuda_impl {

constexpr int kThreads = 256;

inline int blocks_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return int(b < 65535 ? (b < 1 ? 1 : b) : 65535);
}

#define TANDEM_GRID_STRIDE(i, n)                                                   \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n);       \
       i += int64_t(gridDim.x) * blockDim.x)

// Arithmetic type of a storage type: f32 for bf16/f16, itself otherwise (bool is uint8_t).
template <class T> struct Compute { using type = T; };
template <> struct Compute<bf16> { using type = float; };
template <> struct Compute<f16> { using type = float; };
template <class T> using compute_t = typename Compute<T>::type;

template <class T> __host__ __device__ inline compute_t<T> load(T v) {
  if constexpr (std::is_same_v<T, bf16> || std::is_same_v<T, f16>) return to_f32(v);
  else return v;
}
template <class T> __host__ __device__ inline T store(compute_t<T> v) {
  if constexpr (std::is_same_v<T, bf16>) return to_bf16(v);
  else if constexpr (std::is_same_v<T, f16>) return to_f16(v);
  else return v;
}

template <class C> __device__ inline C quiet_nan() {
  if constexpr (std::is_same_v<C, double>) return __longlong_as_double(0x7ff8000000000000LL);
  else return __int_as_float(0x7fc00000);  // std::numeric_limits<float>::quiet_NaN()'s bits
}
template <class C> __device__ inline bool is_nan(C v) {
  if constexpr (std::is_floating_point_v<C>) return v != v;
  else return false;
}

// Host side: calls f(T{}) with T the storage type of t. kInts / kBools say whether i32 and
// bool are accepted (compile-time, so no kernel is instantiated for a type its functor does
// not define); any other dtype is a bad-input error naming the op.
template <bool kInts, bool kBools, class F>
void dispatch_dtype(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::f64: f(double{}); return;
    case DType::f32: f(float{}); return;
    case DType::bf16: f(bf16{}); return;
    case DType::f16: f(f16{}); return;
    case DType::i32:
      if constexpr (kInts) { f(int32_t{}); return; }
      break;
    case DType::pred:
      if constexpr (kBools) { f(uint8_t{}); return; }
      break;
  }
  throw_bad_input(cat(op, " is not defined on ", dtype_name(t)));
}

// Kernels that only move elements dispatch on the element's width.
template <class F> void dispatch_width(size_t bytes, F&& f) {
  switch (bytes) {
    case 1: f(uint8_t{}); return;
    case 2: f(uint16_t{}); return;
    case 4: f(uint32_t{}); return;
    case 8: f(uint64_t{}); return;
  }
  throw Error(ErrorKind::internal, cat("no element type of ", bytes, " bytes"));
}

}  // namespace tandem::cuda_impl
