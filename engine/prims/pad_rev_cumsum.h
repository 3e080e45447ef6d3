// rev, pad and cumsum (lax semantics): the layouts their CPU impls (pad_rev_cumsum.cc) and
// CUDA impls (engine/cuda/pad_rev_cumsum_cuda.cc) share, so both backends copy the same
// elements. rev and pad's operand window are strided copies; cumsum is [outer, n, inner].
#pragma once
#include <vector>

#include "engine/ir/ir.h"

namespace tandem {

// A strided copy of every index of `shape`: dst[dst_base + Σ idx·dst_st] = src[src_base + Σ idx·src_st].
struct CopyPlan {
  Shape shape, src_strides, dst_strides;
  int64_t src_base = 0, dst_base = 0;
};

// rev: the operand read backwards along `dimensions` (distinct, negative counted from the end).
CopyPlan rev_plan(const Shape& x, const std::vector<int64_t>& dimensions);

// pad's padding_config, JAX's (low, high, interior) per dimension, flattened: [lo0, hi0, in0, lo1, ...].
struct PadConfig {
  std::vector<int64_t> lo, hi, interior;
};
PadConfig pad_config(const Params& p, int rank);  // bad input unless 3·rank entries, interior >= 0
Shape pad_out_shape(const Shape& x, const PadConfig& c);  // bad input if a dimension ends below 0
// The operand elements that land inside the output (negative low/high crop): where they go.
CopyPlan pad_plan(const Shape& x, const PadConfig& c);

// cumsum over `axis` (negative counted from the end) of x: outer × n × inner.
struct CumsumPlan {
  int64_t outer = 1, n = 1, inner = 1;
};
CumsumPlan cumsum_plan(const Shape& x, int64_t axis);

}  // namespace tandem
