// Structural reference ops with JAX lax semantics: data movement only, values unchanged.
#pragma once
#include <vector>

#include "reference/array.h"

namespace tandem::ref {

// x: [x.shape] -> [shape]. Operand dim i maps to output dim broadcast_dimensions[i]
// (strictly increasing); its size must equal shape[bd[i]] or be 1 (then it is repeated).
Array broadcast_in_dim(const Array& x, std::vector<int64_t> shape, std::vector<int64_t> broadcast_dimensions);

// x: [...] -> [new_sizes], same row-major order; the element counts must match.
Array reshape(const Array& x, std::vector<int64_t> new_sizes);

// x: [s0..sn-1] -> [s_p0..s_pn-1]; out[i0..] = x[j] with j[p[k]] = i[k].
Array transpose(const Array& x, std::vector<int64_t> permutation);

// x: [s] -> [ceil((limit - start) / stride)] per dim; requires 0 <= start <= limit <= s and
// stride >= 1 (empty strides = all 1).
Array slice(const Array& x, std::vector<int64_t> start, std::vector<int64_t> limit, std::vector<int64_t> strides);

// x: [s] -> [sizes] (sizes <= s). Each start is clamped into [0, s - size] as XLA does (so a
// negative start reads from 0; JAX's Python wrapper, which first adds s to a negative start,
// is not modelled here: the primitive receives the start as given).
Array dynamic_slice(const Array& x, std::vector<int64_t> starts, std::vector<int64_t> sizes);

// x: [s], update: [u] (u <= s, same rank and dtype) -> [s] with update written at the
// clamped starts (clamped into [0, s - u]).
Array dynamic_update_slice(const Array& x, const Array& update, std::vector<int64_t> starts);

// xs: one or more arrays of one rank and dtype, equal except along dimension -> joined.
Array concatenate(const std::vector<Array>& xs, int64_t dimension);

// [shape] of dtype t whose values are their index along dimension (rounded to t).
Array iota(DType t, std::vector<int64_t> shape, int64_t dimension);

}  // namespace tandem::ref
