// Reference gather and scatter-add with JAX's lax semantics (GatherDimensionNumbers /
// ScatterDimensionNumbers with batching dims; the index vector is the last dim of the
// indices). Naive loops over every output (update) element; sums in f64, rounded once.
#pragma once
#include <string>
#include <vector>

#include "reference/array.h"

namespace tandem::ref {

// JAX's GatherScatterMode. gather: CLIP and PROMISE_IN_BOUNDS clamp each start into
// [0, dim - window] (XLA's gather); FILL_OR_DROP gives the fill value for a whole window
// whose start is out of that range. scatter_add: CLIP clamps; FILL_OR_DROP and
// PROMISE_IN_BOUNDS skip such a window (XLA's scatter).
enum class IndexMode { clip, fill_or_drop, promise_in_bounds };
IndexMode index_mode(const std::string& name);  // "CLIP" ...; throws std::invalid_argument
// JAX's default fill: NaN for floats, the lowest i32, true for bool.
double default_fill(DType t);

struct GatherDims {
  std::vector<int64_t> offset_dims, collapsed_slice_dims, start_index_map, operand_batching_dims,
      start_indices_batching_dims;
};
struct ScatterDims {
  std::vector<int64_t> update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims,
      operand_batching_dims, scatter_indices_batching_dims;
};

// operand: [R dims], indices: [B..., K] (integer values) -> [out] where out's dims not in
// offset_dims are B... and the ones in offset_dims the window's sizes of the operand dims
// neither collapsed nor batching. out[b, o] = operand[start(b) + o].
Array gather(const Array& operand, const Array& indices, const GatherDims& d, std::vector<int64_t> slice_sizes,
             IndexMode mode, double fill);
// operand + every update added at its window: updates [U] with update_window_dims walking the
// operand dims neither inserted nor batching; the rest index the indices' batch dims.
Array scatter_add(const Array& operand, const Array& indices, const Array& updates, const ScatterDims& d,
                  IndexMode mode);

// operand with every update written at its window instead (lax.scatter, x.at[i].set(u)):
// updates in row-major order, so where windows overlap the last update wins (XLA leaves the
// order unspecified).
Array scatter(const Array& operand, const Array& indices, const Array& updates, const ScatterDims& d, IndexMode mode);

}  // namespace tandem::ref
