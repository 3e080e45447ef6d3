// conv_general_dilated's reverse-mode rule, as JAX's _conv_general_dilated_transpose_lhs /
// _rhs: each cotangent is itself a conv_general_dilated. The lhs's: the output cotangent
// convolved with the spatially reversed kernel, in and out features swapped, the forward's
// strides becoming lhs dilation and its lhs dilation the strides. The rhs's: the lhs
// convolved with the output cotangent as the kernel, batch and features swapped, the
// forward's strides becoming the kernel dilation. Feature and batch groups trade places.
#include "engine/core/error.h"
#include "engine/ir/vjp_args.h"
#include "engine/prims/conv.h"

namespace tandem {
namespace {
using Cts = std::vector<std::optional<Value>>;

int64_t dilated(int64_t extent, int64_t dilation) { return extent == 0 ? 0 : (extent - 1) * dilation + 1; }
// A spec with its first two entries swapped: batch ↔ feature, out feature ↔ in feature.
std::vector<int64_t> swapped(std::vector<int64_t> spec) {
  std::swap(spec[0], spec[1]);
  return spec;
}
std::vector<int64_t> spatial_of(const std::vector<int64_t>& spec) { return {spec.begin() + 2, spec.end()}; }
Value as_dtype(Value x, DType t) { return x.dtype() == t ? x : convert_element_type(x, t); }

Value transpose_lhs(Value ct, Value rhs, const AType& lhs_t, const ConvSpec& s, const ConvGeometry& g) {
  const int64_t groups = std::max(s.feature_group_count, s.batch_group_count);
  if (groups > 1) {  // the group axis moves from the kernel's out features into its in features
    rhs = reshape_axis_out_of(rhs, int(s.rhs_spec[0]), groups);
    rhs = reshape_axis_into(rhs, int(s.rhs_spec[0]), int(s.rhs_spec[1]));
  }
  ConvSpec t = s;
  t.lhs_spec = s.out_spec, t.rhs_spec = swapped(s.rhs_spec), t.out_spec = s.lhs_spec;
  t.window_strides = s.lhs_dilation, t.lhs_dilation = s.window_strides;
  t.feature_group_count = groups, t.batch_group_count = 1;
  for (int64_t d = 0; d < g.nsp; ++d) {
    const size_t k = size_t(d);
    const int64_t ld = dilated(g.lhs_sp[k], s.lhs_dilation[k]), rd = dilated(g.rhs_sp[k], s.rhs_dilation[k]);
    const int64_t od = dilated(g.out_sp[k], s.window_strides[k]);
    t.pad_lo[k] = rd - s.pad_lo[k] - 1;
    t.pad_hi[k] = ld + rd - 1 - od - t.pad_lo[k];
  }
  Value out = conv_general_dilated(ct, as_dtype(reverse_axes(rhs, spatial_of(s.rhs_spec)), ct.dtype()), t);
  out = as_dtype(out, lhs_t.dtype);
  if (s.batch_group_count > 1) {  // the groups were features of the result: back into the batch
    out = reshape_axis_out_of(out, int(s.lhs_spec[1]), s.batch_group_count);
    out = reshape_axis_into(out, int(s.lhs_spec[1]), int(s.lhs_spec[0]));
  }
  return out;
}

Value transpose_rhs(Value ct, Value lhs, const AType& rhs_t, const ConvSpec& s, const ConvGeometry& g) {
  ConvSpec t = s;
  t.lhs_spec = swapped(s.lhs_spec), t.rhs_spec = swapped(s.out_spec), t.out_spec = swapped(s.rhs_spec);
  t.window_strides = s.rhs_dilation, t.rhs_dilation = s.window_strides;
  t.feature_group_count = s.batch_group_count, t.batch_group_count = s.feature_group_count;
  for (int64_t d = 0; d < g.nsp; ++d) {
    const size_t k = size_t(d);
    const int64_t ld = dilated(g.lhs_sp[k], s.lhs_dilation[k]), rd = dilated(g.rhs_sp[k], s.rhs_dilation[k]);
    const int64_t od = dilated(g.out_sp[k], s.window_strides[k]);
    t.pad_hi[k] = (od - ld) + (rd - s.pad_lo[k] - 1);
  }
  return as_dtype(conv_general_dilated(as_dtype(lhs, ct.dtype()), ct, t), rhs_t.dtype);
}
}  // namespace

void register_conv_vjp_rules() {
  mutable_primitive("conv_general_dilated").vjp = [](const VjpArgs& a, const Params& p) {
    const ConvSpec s = conv_spec(p);
    const ConvGeometry g = conv_geometry(a.in_types[0], a.in_types[1], s);
    Cts r(2);
    const bool empty = num_elements(g.out.shape) == 0;  // no window: nothing flows back
    if (a.wants(0))
      r[0] = empty ? zeros(*a.builder, a.in_types[0]) : transpose_lhs(a.ct(0), a.primal_in(1), a.in_types[0], s, g);
    if (a.wants(1))
      r[1] = empty ? zeros(*a.builder, a.in_types[1]) : transpose_rhs(a.ct(0), a.primal_in(0), a.in_types[1], s, g);
    return r;
  };
}

}  // namespace tandem
