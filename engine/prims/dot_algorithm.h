// dot_general precision and DotAlgorithm presets, with JAX's contract: inputs are cast to the
// algorithm's storage type, products accumulate in its accumulation type, and the result is
// cast to the promoted input dtype unless preferred_element_type says otherwise.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/core/device.h"
#include "common/dtype.h"

namespace tandem {

enum class DotAlgorithm {
  DEFAULT, ANY_F8_ANY_F8_F32, ANY_F8_ANY_F8_F32_FAST_ACCUM, F16_F16_F16, F16_F16_F32,
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
};

const std::vector<AlgorithmInfo>& all_algorithms();
const AlgorithmInfo& algorithm_info(DotAlgorithm a);
std::optional<DotAlgorithm> parse_algorithm(const std::string& s);
std::optional<Precision> parse_precision(const std::string& s);

// The `precision` param holds a Precision name or a preset name, as JAX accepts both.
// Resolves it to the algorithm a backend runs for the given (promoted) input dtype.
// Throws bad_input for an unknown name, unsupported for a preset the backend lacks.
DotAlgorithm resolve_dot_algorithm(const std::string& precision, DType input_dtype, DeviceKind backend);

// Support of a preset on a backend, for docs and `tandem list`.
enum class Support { native, emulated, unsupported };
struct SupportEntry {
  Support support;
  std::string how;  // one line: what runs, or why not
};
SupportEntry algorithm_support(DotAlgorithm a, DeviceKind backend);
const char* support_name(Support s);

// JAX promotion for dot_general operands: equal dtypes stay; mixed floats widen (bf16+f16
// → f32); int with float takes the float.
DType promote_dot_inputs(DType lhs, DType rhs);

}  // namespace tandem
