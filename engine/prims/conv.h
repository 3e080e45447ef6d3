// conv_general_dilated (lax.conv_general_dilated): its params as one struct, the geometry its
// shape rule and impls share, the builder function, and the axis reshapes its VJP and batching
// rules write (JAX's _reshape_axis_out_of / _reshape_axis_into).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/builder.h"

namespace tandem {

// JAX's params; padding is explicit (lo, hi) per spatial dimension. lhs_spec = (batch dim,
// feature dim, spatial dims...), rhs_spec = (out feature dim, in feature dim, spatial...),
// out_spec = (batch dim, feature dim, spatial...): lax.ConvDimensionNumbers.
struct ConvSpec {
  std::vector<int64_t> window_strides, pad_lo, pad_hi, lhs_dilation, rhs_dilation;
  std::vector<int64_t> lhs_spec, rhs_spec, out_spec;
  int64_t feature_group_count = 1, batch_group_count = 1;
  std::string precision = "DEFAULT";
  std::optional<DType> preferred_element_type;
};
Params conv_params(const ConvSpec& s);
ConvSpec conv_spec(const Params& p);  // bad input on a missing or malformed param

// The operands' shapes read through the specs, and the output's.
struct ConvGeometry {
  int64_t nsp = 0;           // spatial dimensions
  int64_t n = 0, c = 0;      // lhs batch and features
  int64_t o = 0, i = 0;      // rhs out and in features
  int64_t n_out = 0;         // out batch: n / batch_group_count
  int64_t groups = 1;        // feature_group_count × batch_group_count (one of them is 1)
  std::vector<int64_t> lhs_sp, rhs_sp, out_sp;
  AType out;
};
// Checks the operands against the params (bad input with a hint when they disagree).
ConvGeometry conv_geometry(const AType& lhs, const AType& rhs, const ConvSpec& s);

Value conv_general_dilated(Value lhs, Value rhs, const ConvSpec& s);

// x with axis src split into (size1, extent / size1) at src, src + 1.
Value reshape_axis_out_of(Value x, int src, int64_t size1);
// x with axis src moved next to (before) axis dst — dst counted with src removed — and merged into it.
Value reshape_axis_into(Value x, int src, int dst);
// x reversed along each of `axes` (lax.rev), from slices and a concatenate: kernels are small.
Value reverse_axes(Value x, const std::vector<int64_t>& axes);

}  // namespace tandem
