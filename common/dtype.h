// The element types tandem knows, shared as plain data by engine/ and reference/.
// This is the only header the two libraries have in common (see DESIGN.md, "Reference").
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tandem {

enum class DType : uint8_t { f64, f32, bf16, f16, i32, pred };

inline constexpr DType kAllDTypes[] = {DType::f64, DType::f32, DType::bf16, DType::f16, DType::i32, DType::pred};

inline constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f64: return "f64";
    case DType::f32: return "f32";
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
    case DType::i32: return "i32";
    case DType::pred: return "bool";
  }
  return "?";
}

inline constexpr int dtype_size(DType t) {
  switch (t) {
    case DType::f64: return 8;
    case DType::f32: case DType::i32: return 4;
    case DType::bf16: case DType::f16: return 2;
    case DType::pred: return 1;
  }
  return 0;
}

inline constexpr bool is_floating(DType t) {
  return t == DType::f64 || t == DType::f32 || t == DType::bf16 || t == DType::f16;
}

// Unit roundoff u = 2^-(mantissa bits + 1): the relative error of one rounding.
inline constexpr double unit_roundoff(DType t) {
  switch (t) {
    case DType::f64: return 0x1p-53;
    case DType::f32: return 0x1p-24;
    case DType::bf16: return 0x1p-8;
    case DType::f16: return 0x1p-11;
    default: return 0.0;  // integers and bool are exact
  }
}

inline std::optional<DType> parse_dtype(std::string_view s) {
  for (DType t : kAllDTypes)
    if (dtype_name(t) == s) return t;
  if (s == "pred") return DType::pred;
  return std::nullopt;
}

}  // namespace tandem
