// Generator rows of reduce_window_max and reduce_window_sum: a numeric value of any rank >= 1
// with a random window per dim (size 1..3, stride 1..2, padding -1..2 each side, both
// dilations sometimes 2), so pooling, overlapping windows, holes and windows of padding only
// all occur. A draw the shape rule refuses (negative padding past the dim) is skipped. The max
// row keeps to what JAX can differentiate, so JAX can judge its vjp chains: its transpose
// refuses window dilation (NotImplementedError) and fails on negative padding; the engine's
// rule takes both (prims_vs_reference's rows check them against the reference's tape).
#include "engine/ir/builder_window.h"
#include "suites/program_fuzz/gen_rows.h"

namespace tandem::fuzz {
namespace {

std::optional<WindowDims> random_window(GenState& s, const std::optional<Value>& x, bool jax_vjp_only) {
  if (!x) return std::nullopt;
  WindowDims w;
  const int64_t lowest_pad = jax_vjp_only ? 0 : -1;
  for (int64_t d = 0; d < x->rank(); ++d) {
    w.window_dimensions.push_back(s.rng.in(1, 3));
    w.window_strides.push_back(s.rng.in(1, 2));
    w.padding.emplace_back(s.rng.in(lowest_pad, 2), s.rng.in(lowest_pad, 2));
    w.base_dilation.push_back(s.rng.chance(0.15) ? 2 : 1);
    w.window_dilation.push_back(!jax_vjp_only && s.rng.chance(0.15) ? 2 : 1);
  }
  return w;
}

template <Value (*Op)(Value, const WindowDims&), bool kMax>
bool emit_window(GenState& s) {
  auto x = s.pick([](const Value& v) { return v.rank() > 0 && v.dtype() != DType::pred; });
  std::optional<WindowDims> w = random_window(s, x, kMax);
  if (!w) return false;
  return try_emit([&] { s.keep(Op(*x, *w)); });
}
}  // namespace

void add_window_rows(GenTable& t) {
  t.rows["reduce_window_max"] = {emit_window<reduce_window_max, true>, 0.5};
  t.rows["reduce_window_sum"] = {emit_window<reduce_window_sum, false>, 0.5};
}

}  // namespace tandem::fuzz
