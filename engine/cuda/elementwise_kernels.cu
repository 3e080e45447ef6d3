// Elementwise kernels (see elementwise_kernels.h): one grid-stride kernel per shape of work (map, zip, select,
// convert), templated over the storage type and a functor, so every dtype and op is an instantiation rather than a
// hand-written loop. The math follows the CPU impls in engine/prims/elementwise.cc expression for expression; this file
// is compiled with --fmad=false (engine/cuda/CMakeLists.txt) so nvcc does not contract a*b+c into an FMA the CPU build
// does not use.
#include <climits>

#include "engine/cuda/elementwise_kernels.h"
#include "engine/cuda/kernel_util.cuh"

namespace tandem::cuda_impl {
namespace {

// ---- unary math: f32 for f32/bf16/f16, f64 for f64 -------------------------------------
// One functor per row of engine/prims/unary_ops.def.
#define TANDEM_UNARY(name, float_only, host_f64, host_f32, host_f32_array, device_f32, device_f64, ...) \
  struct Unary_##name {                                                                             \
    __device__ float operator()(float x) const { return device_f32; }                              \
    __device__ double operator()(double x) const { return device_f64; }                            \
  };
#include "engine/prims/unary_ops.def"

// i32 negation wraps (INT_MIN stays INT_MIN), which is what the CPU's int32(-double(x))
// gives on x86 for the one value whose negation does not fit.
struct NegI32 {
  __device__ int32_t operator()(int32_t x) const { return int32_t(0u - uint32_t(x)); }
};
// abs wraps the same way (abs(INT_MIN) is INT_MIN, as in XLA); sign is -1, 0 or 1.
struct AbsI32 {
  __device__ int32_t operator()(int32_t x) const { return x < 0 ? int32_t(0u - uint32_t(x)) : x; }
};
struct SignI32 {
  __device__ int32_t operator()(int32_t x) const { return int32_t(x > 0) - int32_t(x < 0); }
};

// Square-and-multiply, as XLA expands integer_pow and the CPU impl computes it.
struct IntPow {
  int64_t e;
  template <class C> __device__ C operator()(C x) const {
    C acc = C(1), base = x;
    for (int64_t k = e < 0 ? -e : e; k > 0; k >>= 1, base *= base)
      if (k & 1) acc *= base;
    if (e < 0) return C(1) / acc;
    return acc;
  }
};

template <class T, class F>
__global__ void map_kernel(const T* x, T* y, int64_t n, F f) {
  TANDEM_GRID_STRIDE(i, n) y[i] = store<T>(f(load(x[i])));
}

template <class T, class F>
void launch_map(const void* x, void* y, int64_t n, F f) {
  if (n == 0) return;
  map_kernel<T><<<blocks_for(n), kThreads>>>(static_cast<const T*>(x), static_cast<T*>(y), n, f);
  CUDA_CHECK_LAUNCH();
}

// ---- binary: a rank-0 operand reads element 0 (stride 0) --------------------------------
template <class T, class R, class F>
__global__ void zip_kernel(const T* a, int64_t sa, const T* b, int64_t sb, R* out, int64_t n, F f) {
  TANDEM_GRID_STRIDE(i, n) out[i] = f(load(a[i * sa]), load(b[i * sb]));
}

template <class T, class R, class F>
void launch_zip(Operand a, Operand b, R* out, int64_t n, F f) {
  if (n == 0) return;
  zip_kernel<T, R><<<blocks_for(n), kThreads>>>(static_cast<const T*>(a.data), a.scalar ? 0 : 1,
                                                static_cast<const T*>(b.data), b.scalar ? 0 : 1, out, n, f);
  CUDA_CHECK_LAUNCH();
}

// Integer division by zero writes 0 and raises the fault flag. A plain store: every writer stores 1, and the flag may
// live in mapped host memory (device_faults.h), where atomics need platform support.
template <class C>
__device__ C flagged_div(C a, C b, int* div_by_zero) {
  if constexpr (std::is_integral_v<C>) {
    if (b == 0) {
      *div_by_zero = 1;
      return 0;
    }
  }
  return a / b;
}

// C's fmod; integers as XLA (and the CPU impl): x rem 0 is x, x rem -1 is 0.
template <class C>
__device__ C int_or_fmod(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    if (b == 0) return a;
    return b == -1 ? C(0) : C(a % b);
  } else {
    return fmod(a, b);
  }
}
// pow's shape rule refuses integers, so its i32 instantiation never runs.
template <class C>
__device__ C float_pow(C a, C b) {
  if constexpr (std::is_integral_v<C>) return C(0);
  else return pow(a, b);
}

// One functor per row of engine/prims/binary_ops.def.
#define TANDEM_BINARY(name, float_only, host, device, ...)            \
  template <class T>                                                   \
  struct Binary_##name {                                               \
    int* div_by_zero;                                                  \
    using C = compute_t<T>;                                            \
    __device__ T operator()(C a, C b) const { return store<T>(device); } \
  };
#include "engine/prims/binary_ops.def"

// One functor per row of engine/prims/bitwise_ops.def; `ones` is true (bool) or every bit (i32).
#define TANDEM_BITWISE(id, name, arity, expr)                      \
  template <class T>                                               \
  struct Bitwise_##id {                                            \
    __device__ T operator()(T a, T b) const {                      \
      const T ones = T(std::is_same_v<T, uint8_t> ? 1 : -1);       \
      (void)b, (void)ones;                                         \
      return expr;                                                 \
    }                                                              \
  };
#include "engine/prims/bitwise_ops.def"

// lax.round: half-way away from zero (round), or to even (rint, the default rounding mode).
struct RoundIntegral {
  bool even;
  __device__ float operator()(float x) const { return even ? rintf(x) : roundf(x); }
  __device__ double operator()(double x) const { return even ? rint(x) : ::round(x); }
};

template <class T>
struct Compare {
  CompareDir dir;
  using C = compute_t<T>;
  __device__ uint8_t operator()(C a, C b) const {
    switch (dir) {
      case CompareDir::eq: return a == b;
      case CompareDir::ne: return a != b;
      case CompareDir::lt: return a < b;
      case CompareDir::le: return a <= b;
      case CompareDir::gt: return a > b;
      case CompareDir::ge: return a >= b;
    }
    return 0;
  }
};

// ---- select and convert ------------------------------------------------------------------
template <class W>
__global__ void select_kernel(const uint8_t* pred, int64_t sp, const W* t, const W* f, W* out, int64_t n) {
  TANDEM_GRID_STRIDE(i, n) out[i] = pred[i * sp] ? t[i] : f[i];
}

template <class To, class From>
__device__ To convert_one(From v) {
  auto c = load(v);
  using CF = decltype(c);
  if constexpr (std::is_same_v<To, int32_t>) {
    if constexpr (std::is_floating_point_v<CF>) {
      // Float→int truncates toward zero; NaN → 0 and out-of-range values saturate.
      if (c != c) return 0;
      if (c >= 2147483647.0) return INT_MAX;
      if (c <= -2147483648.0) return INT_MIN;
    }
    return int32_t(c);
  } else if constexpr (std::is_same_v<To, uint8_t>) {
    return uint8_t(c != 0);
  } else if constexpr (std::is_same_v<To, bf16> && std::is_same_v<From, double>) {
    return to_bf16(float(c));  // f64→f32→bf16, as the CPU impl rounds
  } else {
    return store<To>(compute_t<To>(c));
  }
}

template <class From, class To>
__global__ void convert_kernel(const From* src, To* dst, int64_t n) {
  TANDEM_GRID_STRIDE(i, n) dst[i] = convert_one<To>(src[i]);
}

}  // namespace

void unary(UnaryOp op, DType t, const void* x, void* y, int64_t n) {
  if (t == DType::i32) {
    if (op == UnaryOp::neg) return launch_map<int32_t>(x, y, n, NegI32{});
    if (op == UnaryOp::abs) return launch_map<int32_t>(x, y, n, AbsI32{});
    if (op == UnaryOp::sign) return launch_map<int32_t>(x, y, n, SignI32{});
    throw_bad_input("unary math on i32 other than neg, abs and sign");
  }
  dispatch_dtype<false, false>(t, "unary", [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
#define TANDEM_UNARY(name, ...) \
  case UnaryOp::name: return launch_map<T>(x, y, n, Unary_##name{});
#include "engine/prims/unary_ops.def"
    }
  });
}

void integer_pow(DType t, const void* x, void* y, int64_t n, int64_t e) {
  dispatch_dtype<true, false>(t, "integer_pow", [&](auto tag) { launch_map<decltype(tag)>(x, y, n, IntPow{e}); });
}

void binary(BinaryOp op, DType t, Operand a, Operand b, void* out, int64_t n, int* div_by_zero) {
  dispatch_dtype<true, false>(t, "binary op", [&](auto tag) {
    using T = decltype(tag);
    T* o = static_cast<T*>(out);
    switch (op) {
#define TANDEM_BINARY(name, ...) \
  case BinaryOp::name: return launch_zip<T>(a, b, o, n, Binary_##name<T>{div_by_zero});
#include "engine/prims/binary_ops.def"
    }
  });
}

void bitwise(BitwiseOp op, DType t, Operand a, Operand b, void* out, int64_t n) {
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T* o = static_cast<T*>(out);
    switch (op) {
#define TANDEM_BITWISE(id, ...) \
  case BitwiseOp::id: return launch_zip<T>(a, b, o, n, Bitwise_##id<T>{});
#include "engine/prims/bitwise_ops.def"
    }
  };
  if (t == DType::i32) return run(int32_t{});
  if (t == DType::pred) return run(uint8_t{});
  throw_bad_input(cat("bitwise ops are not defined on ", dtype_name(t)));
}

void round_integral(DType t, const void* x, void* y, int64_t n, bool to_nearest_even) {
  dispatch_dtype<false, false>(t, "round", [&](auto tag) { launch_map<decltype(tag)>(x, y, n, RoundIntegral{to_nearest_even}); });
}

void compare(CompareDir dir, DType t, Operand a, Operand b, uint8_t* out, int64_t n) {
  dispatch_dtype<true, true>(t, "compare", [&](auto tag) {
    using T = decltype(tag);
    launch_zip<T>(a, b, out, n, Compare<T>{dir});
  });
}

// A zip of x with itself (its second read unused), so is_finite needs no kernel of its own.
struct IsFinite {
  template <class C> __device__ uint8_t operator()(C x, C) const { return uint8_t(isfinite(double(x))); }
};

void is_finite(DType t, const void* x, uint8_t* out, int64_t n) {
  dispatch_dtype<false, false>(t, "is_finite", [&](auto tag) {
    launch_zip<decltype(tag)>(Operand{x, false}, Operand{x, true}, out, n, IsFinite{});
  });
}

void select(const uint8_t* pred, bool pred_scalar, const void* on_true, const void* on_false,
            void* out, int64_t n, int elem_bytes) {
  if (n == 0) return;
  dispatch_width(size_t(elem_bytes), [&](auto tag) {
    using W = decltype(tag);
    select_kernel<W><<<blocks_for(n), kThreads>>>(pred, pred_scalar ? 0 : 1, static_cast<const W*>(on_true),
                                                  static_cast<const W*>(on_false), static_cast<W*>(out), n);
    CUDA_CHECK_LAUNCH();
  });
}

void convert_element(DType from, const void* src, DType to, void* dst, int64_t n) {
  if (n == 0) return;
  dispatch_dtype<true, true>(from, "convert_element_type", [&](auto from_tag) {
    using From = decltype(from_tag);
    dispatch_dtype<true, true>(to, "convert_element_type", [&](auto to_tag) {
      using To = decltype(to_tag);
      convert_kernel<From, To><<<blocks_for(n), kThreads>>>(static_cast<const From*>(src), static_cast<To*>(dst), n);
      CUDA_CHECK_LAUNCH();
    });
  });
}

}  // namespace tandem::cuda_impl
