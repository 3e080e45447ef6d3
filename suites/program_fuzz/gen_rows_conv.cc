// The generator row of conv_general_dilated: a floating value of rank 3 or 4 as the lhs,
// random layouts (each spec a random permutation), strides, padding (negative included),
// both dilations and a feature or batch group count, the kernel a fresh operand.
#include <algorithm>
#include <numeric>

#include "engine/prims/conv.h"
#include "suites/program_fuzz/gen_rows.h"

namespace tandem::fuzz {
namespace {

std::vector<int64_t> permutation(GenState& s, int64_t r) { return s.random_permutation(r); }

bool emit_conv(GenState& s) {
  auto lhs = s.pick([](const Value& v) { return is_floating(v.dtype()) && (v.rank() == 3 || v.rank() == 4); });
  if (!lhs) return false;
  const int64_t r = lhs->rank(), nsp = r - 2;
  ConvSpec c;
  c.lhs_spec = permutation(s, r), c.rhs_spec = permutation(s, r), c.out_spec = permutation(s, r);
  const int64_t n = lhs->shape()[size_t(c.lhs_spec[0])], ch = lhs->shape()[size_t(c.lhs_spec[1])];
  if (ch > 1 && s.rng.chance(0.3)) c.feature_group_count = ch;
  else if (n > 1 && n % 2 == 0 && s.rng.chance(0.2)) c.batch_group_count = 2;
  const int64_t groups = c.feature_group_count * c.batch_group_count;
  Shape rhs(static_cast<size_t>(r));
  rhs[size_t(c.rhs_spec[0])] = groups * s.rng.in(1, 2);
  rhs[size_t(c.rhs_spec[1])] = ch / c.feature_group_count;
  for (int64_t d = 0; d < nsp; ++d) {
    rhs[size_t(c.rhs_spec[size_t(d + 2)])] = s.rng.in(1, 3);
    c.window_strides.push_back(s.rng.in(1, 2));
    c.pad_lo.push_back(s.rng.in(-1, 2));
    c.pad_hi.push_back(s.rng.in(-1, 2));
    c.lhs_dilation.push_back(s.rng.chance(0.2) ? 2 : 1);
    c.rhs_dilation.push_back(s.rng.chance(0.2) ? 2 : 1);
  }
  Value w = s.operand(AType{rhs, lhs->dtype()});
  return try_emit([&] { s.keep(conv_general_dilated(*lhs, w, c)); });
}
}  // namespace

void add_conv_rows(GenTable& t) { t.rows["conv_general_dilated"] = {emit_conv, 0.7}; }

}  // namespace tandem::fuzz
