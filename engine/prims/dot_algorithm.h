// dot_general precision and DotAlgorithm presets, with JAX's contract: inputs are cast to the
// algorithm's storage type, products accumulate in its accumulation type, and the result is
// cast to the promoted input dtype unless preferred_element_type says otherwise.
#pragma once
#include <string>

#include "common/dtype.h"
#include "engine/core/device.h"
#include "engine/core/dot_algorithm_types.h"

namespace tandem {

// The `precision` param holds a Precision name or a preset name, as JAX accepts both.
// Resolves it to the algorithm a backend runs for the given (promoted) input dtype.
// Throws bad_input for an unknown name, unsupported for a preset the backend lacks.
DotAlgorithm resolve_dot_algorithm(const std::string& precision, DType input_dtype, DeviceKind backend);
// As above for a result of dtype `out` (preferred_element_type): without a preset, JAX takes
// it as the accumulation type, so an f64 result of narrower floats runs F64_F64_F64.
DotAlgorithm resolve_dot_algorithm(const std::string& precision, DType input_dtype, DType out, DeviceKind backend);

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
