// lax.conv_general_dilated as plain loops: every output element is the sum, in long double,
// of lhs × rhs over its input features and kernel window, rounded once to the output dtype.
#pragma once
#include <utility>
#include <vector>

#include "reference/array.h"

namespace tandem::ref {

// JAX's params: one entry per spatial dimension in strides, pad_lo/hi and the dilations;
// lhs_spec = (batch dim, feature dim, spatial dims...), rhs_spec = (out feature dim, in feature
// dim, spatial dims...), out_spec = (batch dim, feature dim, spatial dims...), as
// lax.ConvDimensionNumbers. At most one of the group counts is above 1 (as XLA requires).
struct ConvDims {
  std::vector<int64_t> strides, pad_lo, pad_hi, lhs_dilation, rhs_dilation;
  std::vector<int64_t> lhs_spec, rhs_spec, out_spec;
  int64_t feature_group_count = 1, batch_group_count = 1;
};

// The output shape (in out_spec's layout); std::invalid_argument on inconsistent shapes.
std::vector<int64_t> conv_output_shape(const std::vector<int64_t>& lhs, const std::vector<int64_t>& rhs,
                                       const ConvDims& d);
Array conv_general_dilated(const Array& lhs, const Array& rhs, const ConvDims& d, DType out_dtype);
// (d lhs, d rhs) of sum(ct · conv(lhs, rhs)): the same loop, each product's partials summed
// into the operand it read, in f64.
std::pair<Array, Array> conv_general_dilated_vjp(const Array& lhs, const Array& rhs, const Array& ct,
                                                 const ConvDims& d);

}  // namespace tandem::ref
