// conv_general_dilated's batching rule, as JAX's _conv_general_dilated_batch_rule: a mapped
// lhs folds the examples into its batch dimension; a mapped kernel into its out features;
// both mapped, the examples become feature groups (or more batch groups). The two cases
// whose groups would have to be factored around the examples (a mapped lhs under batch
// groups, a mapped kernel under either group count) run one convolution per example.
#include "engine/prims/batch_rules.h"
#include "engine/prims/conv.h"

namespace tandem {
namespace {
using Result = std::pair<std::vector<Value>, std::vector<BatchAxis>>;

Result conv_rule(const std::vector<Value>& in, const std::vector<BatchAxis>& axes, const Params& p) {
  ConvSpec s = conv_spec(p);
  const int64_t n = batch_size_of(in, axes);
  const BatchAxis &la = axes[0], &ra = axes[1];
  const bool grouped = s.feature_group_count > 1 || s.batch_group_count > 1;
  if ((la && !ra && s.batch_group_count > 1) || (ra && !la && grouped))
    return batch_by_loop("conv_general_dilated", in, axes, p);
  if (la && !ra) {
    Value out = conv_general_dilated(reshape_axis_into(in[0], *la, int(s.lhs_spec[0])), in[1], s);
    return Result{{reshape_axis_out_of(out, int(s.out_spec[0]), n)}, {int(s.out_spec[0])}};
  }
  Value lhs = in[0];
  if (la && ra) {
    if (s.batch_group_count > 1) {
      lhs = reshape_axis_into(in[0], *la, int(s.lhs_spec[0]));
      s.batch_group_count *= n;
    } else {
      lhs = reshape_axis_into(in[0], *la, int(s.lhs_spec[1]));
      s.feature_group_count *= n;
    }
  }
  Value out = conv_general_dilated(lhs, reshape_axis_into(in[1], *ra, int(s.rhs_spec[0])), s);
  return Result{{reshape_axis_out_of(out, int(s.out_spec[1]), n)}, {int(s.out_spec[1])}};
}
}  // namespace

void register_conv_batch_rules() { mutable_primitive("conv_general_dilated").batch = conv_rule; }

}  // namespace tandem
