// The DotAlgorithm value types: the presets, Precision, how a preset splits its operands,
// and the preset table (storage and accumulation types). A lower layer than the primitive, so
// the CPU and CUDA kernels can read a preset without including engine/prims; how a backend
// resolves and supports a preset stays in engine/prims/dot_algorithm.h.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "common/dtype.h"

namespace tandem {

enum class DotAlgorithm {
  DEFAULT, ANY_F8_ANY_F8_F32, ANY_F8_ANY_F8_F32_FAST_ACCUM, ANY_F8_ANY_F8_ANY,
  ANY_F8_ANY_F8_ANY_FAST_ACCUM, F16_F16_F16, F16_F16_F32,
  BF16_BF16_BF16, BF16_BF16_F32, BF16_BF16_F32_X3, BF16_BF16_F32_X6, BF16_BF16_F32_X9,
  TF32_TF32_F32, TF32_TF32_F32_X3, F32_F32_F32, F64_F64_F64,
};
enum class Precision { DEFAULT, HIGH, HIGHEST };

// How a preset is split into passes: each operand as a sum of `parts` narrow terms, and
// `products` partial products summed smallest first (1 for single-pass presets).
enum class SplitFormat { none, bf16, tf32 };

struct AlgorithmInfo {
  DotAlgorithm algorithm;
  const char* name;
  DType storage;        // what the inputs are cast to (f32 for split presets)
  DType accumulation;   // what products accumulate in
  SplitFormat split = SplitFormat::none;
  int parts = 1;        // narrow terms per operand
  int products = 1;     // GEMM passes
  bool tf32_inputs = false;
  bool f8_inputs = false;  // operands rounded to their f8 formats (engine/core/f8.h)
  bool fast_accum = false; // cuBLASLt's fast FP8 accumulation on a GPU (not modelled on the CPU)
};

const std::vector<AlgorithmInfo>& all_algorithms();
const AlgorithmInfo& algorithm_info(DotAlgorithm a);
std::optional<DotAlgorithm> parse_algorithm(const std::string& s);
std::optional<Precision> parse_precision(const std::string& s);

}  // namespace tandem
