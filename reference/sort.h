// Reference sort with JAX's lax.sort semantics: operands of one shape sorted together along
// `dimension`, lexicographically by the first num_keys, stably. JAX's float order
// (_sort_lt_comparator after _canonicalize_float_for_sort): -0.0 ties with 0.0, and every NaN
// ties with the others after +inf.
#pragma once
#include <vector>

#include "reference/array.h"

namespace tandem::ref {

// For each flat position of the sorted result, the flat position of the element of the
// operands it comes from (keys: the first num_keys arrays, of one shape).
std::vector<int64_t> sort_permutation(const std::vector<Array>& keys, int64_t dimension);
// The operands permuted by sort_permutation of their first num_keys.
std::vector<Array> sort(const std::vector<Array>& operands, int64_t dimension, int64_t num_keys);

}  // namespace tandem::ref
