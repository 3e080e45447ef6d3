// Seeded inputs: the same values on every run and every rank, from a key (a case or row
// name). Both sides of a comparison get them: the engine as Tensors, the reference through
// to_ref (reference_bridge.h). The case harness's Program cases (harness/program_case.h) and
// the engine-vs-reference rows (prims_vs_reference_test.cc) draw their inputs here.
#pragma once
#include <string>

#include "engine/core/tensor.h"

namespace tandem {

// Seeded uniform values in [lo, hi), rounded to dtype; the seed comes from the key, so every
// run and every rank makes the same inputs.
Tensor seeded_uniform(const Shape& shape, DType dtype, const std::string& seed_key, double lo = -1, double hi = 1);

}  // namespace tandem
