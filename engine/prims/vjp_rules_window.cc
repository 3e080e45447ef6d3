// Reverse-mode rules for reduce_window_sum and reduce_window_max, as JAX's:
// - reduce_window_sum is linear; its cotangent is JAX's _reduce_window_sum_transpose_rule: the
//   output cotangent padded (conv's lhs-vjp padding, strides as interior) and summed over
//   windows of the same size striding by base_dilation.
// - reduce_window_max routes each window's cotangent to its first maximal element (XLA's
//   select_and_scatter with ge, JAX's _select_and_gather_add transposed), reading only the
//   operand, as JAX's residual is. Written with existing primitives, one pass per window
//   offset k: x's padded, dilated view at offset k is compared with the window max, the first
//   offset that matches (padding never matches) takes the cotangent, which is padded back to
//   its place; the sum is then unpadded and undilated. Holes of base_dilation hold -inf, so
//   they take a cotangent only when the window's max is -inf and then drop it, as JAX's do.
#include <cmath>

#include "engine/core/error.h"
#include "engine/ir/vjp_args.h"
#include "engine/prims/reduce_window.h"

namespace tandem {
namespace {
using Cts = std::vector<std::optional<Value>>;

int64_t dilated(int64_t extent, int64_t dilation) { return extent == 0 ? 0 : (extent - 1) * dilation + 1; }

Value sum_cotangent(const VjpArgs& a, const Params& p) {
  const AType& x = a.in_types[0];
  const WindowDims w = window_dims_of(x, p, "reduce_window_sum");
  const Shape& out = a.out_types[0].shape;
  std::vector<PadDim> cfg;
  for (size_t d = 0; d < size_t(x.rank()); ++d) {
    const int64_t win = dilated(w.window_dimensions[d], w.window_dilation[d]);
    const int64_t before = win - w.padding[d].first - 1;
    const int64_t after = dilated(x.shape[d], w.base_dilation[d]) + win - 1 - dilated(out[d], w.window_strides[d]) - before;
    cfg.push_back({before, after, w.window_strides[d] - 1});
  }
  Value g = pad(a.ct(0), a.builder->literal(0, x.dtype), cfg);
  return reduce_window_sum(g, window_dims(w.window_dimensions, w.base_dilation, {}, {}, w.window_dilation));
}

// x's padded, dilated view read by window offset `start` (per dim), strided as the windows.
Value window_view(Value v, const Shape& start, const Shape& out, const WindowDims& w) {
  Shape limit;
  for (size_t d = 0; d < start.size(); ++d) limit.push_back(start[d] + dilated(out[d], w.window_strides[d]));
  return slice(v, start, limit, w.window_strides);
}

Value max_cotangent(const VjpArgs& a, const Params& p) {
  const AType& x = a.in_types[0];
  const WindowDims w = window_dims_of(x, p, "reduce_window_max");
  const Shape& out = a.out_types[0].shape;
  Builder& b = *a.builder;
  const size_t r = size_t(x.rank());
  Shape dil;
  std::vector<PadDim> grow, edges, unpad;
  for (size_t d = 0; d < r; ++d) {
    dil.push_back(dilated(x.shape[d], w.base_dilation[d]));
    grow.push_back({w.padding[d].first, w.padding[d].second, w.base_dilation[d] - 1});
    edges.push_back({w.padding[d].first, w.padding[d].second, 0});
    unpad.push_back({-w.padding[d].first, -w.padding[d].second, 0});
  }
  Value xp = pad(a.primal_in(0), b.literal(-INFINITY, x.dtype), grow);
  Value valid = pad(broadcast_in_dim(b.literal(1, DType::pred), dil, {}), b.literal(0, DType::pred), edges);
  Value y = reduce_window_max(a.primal_in(0), w), g = a.ct(0);
  Value no = broadcast_in_dim(b.literal(0, DType::pred), out, {}), zero = zeros(b, AType{out, x.dtype});
  Value free = broadcast_in_dim(b.literal(1, DType::pred), out, {});
  std::optional<Value> total;
  const Shape& padded = xp.shape();
  Shape k(r, 0);
  for (int64_t n = 0; n < num_elements(w.window_dimensions); ++n) {
    Shape start;
    for (size_t d = 0; d < r; ++d) start.push_back(k[d] * w.window_dilation[d]);
    Value hit = select(window_view(valid, start, out, w), compare(window_view(xp, start, out, w), y, "eq"), no);
    Value taken = select(free, hit, no);
    free = select(taken, no, free);
    std::vector<PadDim> back;  // the view's inverse: its elements back at their place in xp
    for (size_t d = 0; d < r; ++d)
      back.push_back({start[d], padded[d] - start[d] - dilated(out[d], w.window_strides[d]), w.window_strides[d] - 1});
    Value part = pad(select(taken, g, zero), b.literal(0, x.dtype), back);
    total = total ? add(*total, part) : part;
    for (size_t d = r; d-- > 0;) {  // next offset, row-major
      if (++k[d] < w.window_dimensions[d]) break;
      k[d] = 0;
    }
  }
  Value gd = pad(*total, b.literal(0, x.dtype), unpad);  // back to the dilated operand
  return slice(gd, Shape(r, 0), dil, w.base_dilation);
}

void set(const char* name, VjpRule r) { mutable_primitive(name).vjp = std::move(r); }

// No window at all (a window wider than the padded operand): nothing reaches the operand, and
// the views above would slice past its end.
bool no_windows(const VjpArgs& a) { return num_elements(a.out_types[0].shape) == 0; }
}  // namespace

void register_window_vjp_rules() {
  set("reduce_window_sum", [](const VjpArgs& a, const Params& p) {
    Cts r(1);
    if (a.wants(0)) r[0] = no_windows(a) ? zeros(*a.builder, a.in_types[0]) : sum_cotangent(a, p);
    return r;
  });
  set("reduce_window_max", [](const VjpArgs& a, const Params& p) {
    Cts r(1);
    if (a.wants(0)) r[0] = no_windows(a) ? zeros(*a.builder, a.in_types[0]) : max_cotangent(a, p);
    return r;
  });
}

}  // namespace tandem
