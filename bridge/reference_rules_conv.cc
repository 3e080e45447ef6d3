// The reference's conv_general_dilated row: the equation's params (read by the engine's
// conv_spec, plain data) as ref::ConvDims; eval is ref::conv_general_dilated, the tape one
// node whose backward is ref::conv_general_dilated_vjp (the reference's own loops, checked
// against finite differences in reference/conv_test.cc).
#include "bridge/reference_rules.h"
#include "engine/prims/conv.h"
#include "reference/conv.h"

namespace tandem {
namespace {
using ref::Array;
using Id = ref::Tape::Id;

ref::ConvDims dims_of(const Params& p) {
  const ConvSpec s = conv_spec(p);
  return ref::ConvDims{s.window_strides, s.pad_lo, s.pad_hi, s.lhs_dilation, s.rhs_dilation, s.lhs_spec,
                       s.rhs_spec, s.out_spec, s.feature_group_count, s.batch_group_count};
}

std::vector<Array> eval_conv(const Eqn& e, const std::vector<Array>& in, const RefEvalContext&) {
  return {ref::conv_general_dilated(in[0], in[1], dims_of(e.params), e.out[0]->type.dtype)};
}

std::vector<Id> tape_conv(const Eqn& e, const std::vector<Id>& in, const RefTapeContext& ctx) {
  const ref::ConvDims d = dims_of(e.params);
  const Array lhs = ctx.tape.value(in[0]), rhs = ctx.tape.value(in[1]);
  Array y = ref::conv_general_dilated(lhs, rhs, d, e.out[0]->type.dtype);
  return {ctx.tape.custom(std::move(y), {in[0], in[1]}, [lhs, rhs, d](const Array& ct) {
    auto [dl, dr] = ref::conv_general_dilated_vjp(lhs, rhs, ct, d);
    return std::vector<Array>{std::move(dl), std::move(dr)};
  })};
}
}  // namespace

ReferenceRule conv_reference_rule() { return {eval_conv, tape_conv}; }

}  // namespace tandem
