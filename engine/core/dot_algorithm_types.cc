// The DotAlgorithm preset table (engine/core/dot_algorithm_types.h).
#include "engine/core/dot_algorithm_types.h"

#include "engine/core/error.h"

namespace tandem {

const std::vector<AlgorithmInfo>& all_algorithms() {
  using A = DotAlgorithm;
  static const std::vector<AlgorithmInfo> table = {
      {A::DEFAULT, "DEFAULT", DType::f32, DType::f32},
      // f8 operands (e4m3fn or e5m2 each), f32 accumulation. ANY_F8_ANY_F8_ANY's accumulation
      // is "controlled by preferred_element_type" in JAX's docstring, but JAX lowers all four
      // presets with an f32 accumulation type (DotAlgorithmPreset._convert_to_hlo_attr), so
      // XLA accumulates in f32 and casts to the result type: that is what runs here too.
      {A::ANY_F8_ANY_F8_F32, "ANY_F8_ANY_F8_F32", DType::f32, DType::f32, SplitFormat::none, 1, 1, false, true},
      {A::ANY_F8_ANY_F8_F32_FAST_ACCUM, "ANY_F8_ANY_F8_F32_FAST_ACCUM", DType::f32, DType::f32, SplitFormat::none, 1, 1,
       false, true, true},
      {A::ANY_F8_ANY_F8_ANY, "ANY_F8_ANY_F8_ANY", DType::f32, DType::f32, SplitFormat::none, 1, 1, false, true},
      {A::ANY_F8_ANY_F8_ANY_FAST_ACCUM, "ANY_F8_ANY_F8_ANY_FAST_ACCUM", DType::f32, DType::f32, SplitFormat::none, 1, 1,
       false, true, true},
      {A::F16_F16_F16, "F16_F16_F16", DType::f16, DType::f16},
      {A::F16_F16_F32, "F16_F16_F32", DType::f16, DType::f32},
      {A::BF16_BF16_BF16, "BF16_BF16_BF16", DType::bf16, DType::bf16},
      {A::BF16_BF16_F32, "BF16_BF16_F32", DType::bf16, DType::f32},
      {A::BF16_BF16_F32_X3, "BF16_BF16_F32_X3", DType::f32, DType::f32, SplitFormat::bf16, 2, 3},
      {A::BF16_BF16_F32_X6, "BF16_BF16_F32_X6", DType::f32, DType::f32, SplitFormat::bf16, 3, 6},
      {A::BF16_BF16_F32_X9, "BF16_BF16_F32_X9", DType::f32, DType::f32, SplitFormat::bf16, 3, 9},
      {A::TF32_TF32_F32, "TF32_TF32_F32", DType::f32, DType::f32, SplitFormat::none, 1, 1, true},
      {A::TF32_TF32_F32_X3, "TF32_TF32_F32_X3", DType::f32, DType::f32, SplitFormat::tf32, 2, 3},
      {A::F32_F32_F32, "F32_F32_F32", DType::f32, DType::f32},
      {A::F64_F64_F64, "F64_F64_F64", DType::f64, DType::f64},
  };
  return table;
}

const AlgorithmInfo& algorithm_info(DotAlgorithm a) {
  for (const auto& i : all_algorithms())
    if (i.algorithm == a) return i;
  throw Error(ErrorKind::invariant, "algorithm missing from table");
}

std::optional<DotAlgorithm> parse_algorithm(const std::string& s) {
  for (const auto& i : all_algorithms())
    if (s == i.name) return i.algorithm;
  return std::nullopt;
}

std::optional<Precision> parse_precision(const std::string& s) {
  if (s == "DEFAULT" || s.empty()) return Precision::DEFAULT;
  if (s == "HIGH") return Precision::HIGH;
  if (s == "HIGHEST") return Precision::HIGHEST;
  return std::nullopt;
}

}  // namespace tandem
