// Typed dispatch for CPU kernels: maps a DType to its storage type and the type arithmetic
// runs in (f32 for bf16/f16, which are rounded back on store, as XLA's CPU backend does).
#pragma once
#include <cstdint>
#include <type_traits>

#include "engine/core/error.h"
#include "engine/core/half.h"
#include "common/dtype.h"

namespace tandem::cpu {

template <class T> struct Compute { using type = T; };
template <> struct Compute<bf16> { using type = float; };
template <> struct Compute<f16> { using type = float; };
template <class T> using compute_t = typename Compute<T>::type;

template <class T> inline compute_t<T> load(T v) {
  if constexpr (std::is_same_v<T, bf16> || std::is_same_v<T, f16>) return to_f32(v);
  else return v;
}
template <class T> inline T store(compute_t<T> v) {
  if constexpr (std::is_same_v<T, bf16>) return to_bf16(v);
  else if constexpr (std::is_same_v<T, f16>) return to_f16(v);
  else return v;
}

// Calls f(T{}) with T the storage type of a floating dtype.
template <class F> decltype(auto) dispatch_float(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::f64: return f(double{});
    case DType::f32: return f(float{});
    case DType::bf16: return f(bf16{});
    case DType::f16: return f(f16{});
    default: throw_bad_input(cat(op, " needs a floating dtype, got ", dtype_name(t)));
  }
}
// Floating dtypes and i32.
template <class F> decltype(auto) dispatch_numeric(DType t, const char* op, F&& f) {
  if (t == DType::i32) return f(int32_t{});
  return dispatch_float(t, op, std::forward<F>(f));
}
// Every dtype (bool stored as uint8_t).
template <class F> decltype(auto) dispatch_any(DType t, const char* op, F&& f) {
  if (t == DType::pred) return f(uint8_t{});
  return dispatch_numeric(t, op, std::forward<F>(f));
}

}  // namespace tandem::cpu
